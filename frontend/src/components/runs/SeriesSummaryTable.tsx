import { useState, type ReactNode } from "react";
import { Link } from "react-router";

import type { MetricInfo, SeriesContext, SeriesRead, Summary } from "../../api/types";
import { formatLabels } from "../../lib/format";
import { formatLatency, type Origin, originNote } from "../../lib/origin";
import { changePct, DEFAULT_COLUMNS, rowLabels, splitLabels } from "../../lib/summaryTable";
import { formatCount, formatDeltaPct, formatNs, formatValue } from "../../lib/units";
import { latencyValue, metricHeaders, metricLabel, summaryKeys } from "../../lib/vocabulary";
import { Sparkline } from "../charts/Sparkline";
import { num, TableHead } from "../common/TableHead";

/**
 * One row per series (all trials merged; open-loop series add their uncorrected view), latency
 * in human units (exact ns on hover), then the series' metrics in the units the API gives.
 * A tail percentile the API marks unreliable (too few samples beyond it) is flagged, and a
 * statistic interpolated between the percentiles a harness printed is marked "~".
 *
 * It fits its box: labels all series share are said once above it, the series column stays
 * put while the rest scrolls, rates (throughput, msg/s) come first, and the reader picks the
 * latency columns and other metrics (a few by default). With `context`, each series' P99
 * against the run's baseline and a sparkline of its history (a link to its trend).
 */
export function SeriesSummaryTable({
  series,
  metricInfo,
  context,
  trendHref,
}: {
  series: SeriesRead[];
  metricInfo: Record<string, MetricInfo>;
  context?: SeriesContext[];
  trendHref?: (labels: Record<string, unknown>) => string;
}) {
  const allMetrics = [...new Set(series.flatMap((item) => Object.keys(item.metrics)))];
  // Rates (throughput, msg/s) always show, first; the other metrics are the reader's choice.
  const isRate = (name: string) => (metricInfo[name]?.unit ?? "").endsWith("/s");
  const pinned = allMetrics.filter(isRate);
  const others = allMetrics.filter((name) => !isRate(name));
  const optional = [...summaryKeys(), ...others];
  const [shown, setShown] = useState<ReadonlySet<string>>(
    () => new Set([...DEFAULT_COLUMNS, ...others.slice(0, 4)]),
  );
  const columns = summaryKeys().filter((key) => shown.has(key));
  const metricNames = [...pinned, ...others.filter((name) => shown.has(name))];
  const { common, varying } = splitLabels(series);
  const byId = new Map((context ?? []).map((item) => [item.series_id, item]));
  const withBaseline = (context ?? []).some((item) => item.baseline !== null);
  const rowProps = { columns, metricNames, metricInfo };
  const headers = metricHeaders(["count", ...columns, ...metricNames], metricInfo);

  function toggle(name: string) {
    setShown((current) => {
      const next = new Set(current);
      if (next.has(name)) next.delete(name);
      else next.add(name);
      return next;
    });
  }

  return (
    <>
      <div className="summary-tools">
        {Object.keys(common).length > 0 && (
          <p className="small" aria-label="Labels of every series">
            Every series: <strong>{formatLabels(common)}</strong>
          </p>
        )}
        <details className="column-chooser">
          <summary>Columns</summary>
          <fieldset>
            <legend className="visually-hidden">Columns shown</legend>
            {optional.map((name) => (
              <label key={name} className="small">
                <input type="checkbox" checked={shown.has(name)} onChange={() => toggle(name)} />{" "}
                {metricHeaders(optional, metricInfo)[name]}
              </label>
            ))}
          </fieldset>
        </details>
      </div>
      <div className="table-scroll">
        <table className="table summary-table">
          <TableHead
            columns={[
              { label: "Series", className: "sticky-col" },
              context && num("P99 history"),
              withBaseline && num("P99 vs baseline"),
              ...["count", ...columns, ...metricNames].map((name) => num(headers[name], name)),
            ]}
          />
          <tbody>
            {series.flatMap((item) => {
              const name = formatLabels(rowLabels(item.labels, varying));
              const around = byId.get(item.id);
              const rows = [
                <SummaryRow
                  key={item.id}
                  name={name}
                  summary={item.summary}
                  unreliable={item.unreliable}
                  origin={item}
                  metrics={item.metrics}
                  {...rowProps}
                >
                  {context && (
                    <HistoryCell around={around} href={trendHref?.(item.labels)} name={name} />
                  )}
                  {withBaseline && (
                    <BaselineCell p99={item.summary.p99} baseline={around?.baseline?.p99} />
                  )}
                </SummaryRow>,
              ];
              if (item.summary_uncorrected) {
                rows.push(
                  <SummaryRow
                    key={`${String(item.id)}-uncorrected`}
                    name={`${name} (uncorrected)`}
                    summary={item.summary_uncorrected}
                    unreliable={item.unreliable}
                    origin={item}
                    metrics={{}}
                    secondary
                    {...rowProps}
                  >
                    {context && <td />}
                    {withBaseline && <td />}
                  </SummaryRow>,
                );
              }
              return rows;
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}

function HistoryCell({
  around,
  href,
  name,
}: {
  around: SeriesContext | undefined;
  href: string | undefined;
  name: string;
}) {
  const points = around?.history ?? [];
  if (points.length < 2) return <td className="num muted small">{points.length} run</td>;
  const line = (
    <Sparkline
      values={points.map((point) => point.p99)}
      label={`P99 of ${name} over its last ${String(points.length)} runs`}
    />
  );
  return <td className="num">{href ? <Link to={href}>{line}</Link> : line}</td>;
}

function BaselineCell({ p99, baseline }: { p99: number; baseline: number | null | undefined }) {
  const pct = changePct(p99, baseline);
  if (pct === null) return <td className="num muted">—</td>;
  const tone = pct > 0 ? "text-bad" : pct < 0 ? "text-good" : "";
  return (
    <td className={`num ${tone}`} title={`baseline ${formatNs(baseline ?? 0)}`}>
      {formatDeltaPct(pct)}
    </td>
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
  children,
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
  children?: ReactNode;
}) {
  return (
    <tr className={secondary ? "secondary" : undefined}>
      <th scope="row" className="sticky-col">
        {name}
      </th>
      {children}
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
            {formatLatency(value, origin)}
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
