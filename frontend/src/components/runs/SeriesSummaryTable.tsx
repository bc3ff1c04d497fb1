import type { MetricInfo, SeriesRead, Summary } from "../../api/types";
import { formatLabels } from "../../lib/format";
import { formatCount, formatNs, formatValue, tailReliable } from "../../lib/units";

type LatencyKey = Exclude<keyof Summary, "count">;

const LATENCY_COLUMNS: { key: LatencyKey; label: string; percentile?: number }[] = [
  { key: "p50", label: "p50", percentile: 50 },
  { key: "p90", label: "p90", percentile: 90 },
  { key: "p95", label: "p95", percentile: 95 },
  { key: "p99", label: "p99", percentile: 99 },
  { key: "p999", label: "p99.9", percentile: 99.9 },
  { key: "p9999", label: "p99.99", percentile: 99.99 },
  { key: "max", label: "max" },
  { key: "mean", label: "mean" },
  { key: "stddev", label: "stddev" },
];

/**
 * One row per series (all trials merged; open-loop series add their uncorrected view), latency
 * in human units (exact ns on hover), then the series' metrics in the units the API gives.
 * A tail percentile with fewer than ten samples beyond it is flagged, not trusted.
 */
export function SeriesSummaryTable({
  series,
  metricInfo,
}: {
  series: SeriesRead[];
  metricInfo: Record<string, MetricInfo>;
}) {
  const metricNames = [...new Set(series.flatMap((item) => Object.keys(item.metrics)))];
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
          {metricNames.map((name) => (
            <th key={name} scope="col" className="num">
              {metricInfo[name]?.label ?? name}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {series.flatMap((item) => {
          const rows = [
            <SummaryRow
              key={item.id}
              name={formatLabels(item.labels)}
              summary={item.summary}
              metrics={item.metrics}
              metricNames={metricNames}
              metricInfo={metricInfo}
            />,
          ];
          if (item.summary_uncorrected) {
            rows.push(
              <SummaryRow
                key={`${String(item.id)}-uncorrected`}
                name={`${formatLabels(item.labels)} (uncorrected)`}
                summary={item.summary_uncorrected}
                metrics={{}}
                metricNames={metricNames}
                metricInfo={metricInfo}
                secondary
              />,
            );
          }
          return rows;
        })}
      </tbody>
    </table>
  );
}

function SummaryRow({
  name,
  summary,
  metrics,
  metricNames,
  metricInfo,
  secondary = false,
}: {
  name: string;
  summary: Summary;
  metrics: Record<string, number>;
  metricNames: string[];
  metricInfo: Record<string, MetricInfo>;
  secondary?: boolean;
}) {
  return (
    <tr className={secondary ? "secondary" : undefined}>
      <th scope="row">{name}</th>
      <td className="num">{formatCount(summary.count)}</td>
      {LATENCY_COLUMNS.map((column) => {
        const unreliable =
          column.percentile !== undefined && !tailReliable(summary.count, column.percentile);
        return (
          <td
            key={column.key}
            className={`num${unreliable ? " unreliable" : ""}`}
            data-column={secondary ? undefined : column.key}
            title={
              unreliable
                ? `${String(summary[column.key])} ns — fewer than 10 samples beyond ${column.label}: not to be trusted`
                : `${String(summary[column.key])} ns`
            }
          >
            {formatNs(summary[column.key])}
            {unreliable && <span aria-label=" (few samples)"> ⚠</span>}
          </td>
        );
      })}
      {metricNames.map((metric) => {
        const value = metrics[metric];
        const unit = metricInfo[metric]?.unit ?? "";
        return (
          <td key={metric} className="num" data-column={secondary ? undefined : metric}>
            {value === undefined ? "" : formatValue(value, unit)}
          </td>
        );
      })}
    </tr>
  );
}
