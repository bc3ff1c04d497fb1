import type { MetricInfo, SeriesRead, Summary } from "../../api/types";
import { formatLabels } from "../../lib/format";
import { type Origin, originNote } from "../../lib/origin";
import { formatCount, formatNs, formatValue } from "../../lib/units";

type LatencyKey = Exclude<keyof Summary, "count">;

/** The summary columns shown, in this order; their labels come from the API. */
const LATENCY_COLUMNS: LatencyKey[] = [
  "p50",
  "p90",
  "p95",
  "p99",
  "p999",
  "p9999",
  "max",
  "mean",
  "stddev",
];

/**
 * One row per series (all trials merged; open-loop series add their uncorrected view), latency
 * in human units (exact ns on hover), then the series' metrics in the units the API gives.
 * A tail percentile the API marks unreliable (too few samples beyond it) is flagged, and a
 * statistic interpolated between the percentiles a harness printed is marked "~".
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
            <th key={column} scope="col" className="num">
              {metricInfo[column]?.label ?? column}
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
              unreliable={item.unreliable}
              origin={item}
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
                unreliable={item.unreliable}
                origin={item}
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
  unreliable: flagged,
  origin,
  metrics,
  metricNames,
  metricInfo,
  secondary = false,
}: {
  name: string;
  summary: Summary;
  unreliable: string[];
  origin: Origin;
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
        const unreliable = flagged.includes(column);
        const label = metricInfo[column]?.label ?? column;
        const came = originNote(column, origin);
        const notes = [
          `${String(summary[column])} ns`,
          ...(came ? [came.note] : []),
          ...(unreliable ? [`too few samples beyond ${label}: not to be trusted`] : []),
        ];
        return (
          <td
            key={column}
            className={`num${unreliable ? " unreliable" : ""}`}
            data-column={secondary ? undefined : column}
            title={notes.join(" — ")}
          >
            {came?.mark}
            {formatNs(summary[column])}
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
