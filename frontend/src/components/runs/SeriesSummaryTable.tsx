import type { SeriesRead, Summary } from "../../api/types";
import { formatLabels } from "../../lib/format";
import { formatCount, formatNs } from "../../lib/units";

const LATENCY_COLUMNS: { key: Exclude<keyof Summary, "count">; label: string }[] = [
  { key: "p50", label: "p50" },
  { key: "p90", label: "p90" },
  { key: "p95", label: "p95" },
  { key: "p99", label: "p99" },
  { key: "p999", label: "p99.9" },
  { key: "p9999", label: "p99.99" },
  { key: "max", label: "max" },
  { key: "mean", label: "mean" },
  { key: "stddev", label: "stddev" },
];

/** One row per series: all trials merged, latencies in human units (exact ns on hover). */
export function SeriesSummaryTable({ series }: { series: SeriesRead[] }) {
  return (
    <table className="table summary-table">
      <thead>
        <tr>
          <th scope="col">Series</th>
          <th scope="col" className="num">
            count
          </th>
          {LATENCY_COLUMNS.map((column) => (
            <th key={column.key} scope="col" className="num">
              {column.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {series.map((item) => (
          <tr key={item.id}>
            <th scope="row">{formatLabels(item.labels)}</th>
            <td className="num">{formatCount(item.summary.count)}</td>
            {LATENCY_COLUMNS.map((column) => (
              <td
                key={column.key}
                className="num"
                data-column={column.key}
                title={`${String(item.summary[column.key])} ns`}
              >
                {formatNs(item.summary[column.key])}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
