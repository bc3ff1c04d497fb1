import type { MetricInfo, SeriesRead, Summary } from "../../api/types";
import { formatLabels } from "../../lib/format";
import { type Origin, originNote } from "../../lib/origin";
import { formatCount, formatNs, formatValue } from "../../lib/units";
import { latencyValue, metricLabel, summaryKeys } from "../../lib/vocabulary";

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
  const columns = summaryKeys();
  return (
    <table className="table summary-table">
      <thead>
        <tr>
          <th scope="col">Series</th>
          {["count", ...columns, ...metricNames].map((name) => (
            <th key={name} scope="col" className="num">
              {metricLabel(name, metricInfo[name])}
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
              columns={columns}
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
                columns={columns}
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
  columns,
  summary,
  unreliable: flagged,
  origin,
  metrics,
  metricNames,
  metricInfo,
  secondary = false,
}: {
  name: string;
  columns: string[];
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
      {columns.map((column) => {
        const value = latencyValue(summary, column);
        const unreliable = flagged.includes(column);
        const label = metricLabel(column, metricInfo[column]);
        const came = originNote(column, origin);
        const notes = [
          `${String(value)} ns`,
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
            {formatNs(value)}
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
