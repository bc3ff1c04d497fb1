import { useMemo } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";

import { useRules } from "../../api/alerts";
import { useTrends } from "../../api/analysis";
import { useAnnotations } from "../../api/annotations";
import { errorMessage } from "../../api/client";
import type { TrendQuery, TrendRead } from "../../api/types";
import { annotationMarkers } from "../../lib/annotations";
import { formatDateTime, formatLabels, shortCommit } from "../../lib/format";
import {
  changeMarkers,
  formatShare,
  matchingThresholds,
  mergeTrendRows,
  smallestChangeText,
  windowBand,
  type SeriesChoice,
  type Threshold,
} from "../../lib/trends";
import { formatValue } from "../../lib/units";
import { TrendChart, type TrendLine } from "../charts/TrendChart";
import { ShareButton } from "../common/ShareButton";
import { EmptyState, ErrorState, Loading } from "../common/Status";
import { HistoryChoice } from "./HistoryChoice";
import { TrendAnnotations } from "./TrendAnnotations";

const DIRECTION_TEXT: Record<string, string> = {
  lower: "lower is better",
  higher: "higher is better",
  none: "no better direction",
};

/** A metric's history, series by series: the chart with its thresholds, change points,
 * window and annotations, and the choice of history (branch, host, params, days). */
export function TrendPanel({
  suite,
  scenario,
  metric,
  label,
  series,
  branch,
  host,
  days,
  params,
  runId,
}: {
  suite: string;
  scenario: string;
  metric: string;
  label: string;
  series: SeriesChoice[];
  branch: string | null;
  host: string | null;
  days: string | null;
  params: string | null;
  runId: number | null;
}) {
  const navigate = useNavigate();
  const [search, setSearch] = useSearchParams();
  const queries = useMemo(
    () =>
      series.map((item): TrendQuery => ({
        suite,
        scenario,
        metric,
        labels: item.key,
        ...(branch ? { branch } : {}),
        ...(host ? { host } : {}),
        ...(days ? { since: sinceDays(Number(days)) } : {}),
        ...(params ? { params } : {}),
        ...(runId !== null ? { run_id: runId } : {}),
      })),
    [series, suite, scenario, metric, branch, host, days, params, runId],
  );
  const trends = useTrends(queries);
  const rules = useRules();

  const loaded = trends.data.filter((trend): trend is TrendRead => trend !== undefined);
  const chart = useMemo(() => {
    const withKeys = series.flatMap((item, index) => {
      const trend = trends.data[index];
      return trend ? [{ key: item.key, labels: item.labels, trend, index }] : [];
    });
    const rows = mergeTrendRows(
      withKeys.map((item) => ({ key: item.key, points: item.trend.points })),
    );
    const lines: TrendLine[] = withKeys.map((item) => ({
      key: item.key,
      name: formatLabels(item.labels),
      seriesIndex: item.index,
      changes: changeMarkers(item.trend.points, item.trend.change_points, rows),
      window: windowBand(rows, item.trend.window),
    }));
    const hosts = new Set(
      withKeys.flatMap((item) => item.trend.points.flatMap((p) => p.host_name ?? [])),
    );
    return { rows, lines, hosts };
  }, [series, trends.data]);
  const first = chart.rows[0];
  const annotations = useAnnotations(
    {
      suite,
      since: first ? new Date(first.t).toISOString() : undefined,
      limit: 500,
    },
    first !== undefined,
  );
  const markers = useMemo(
    () => annotationMarkers(chart.rows, annotations.data ?? [], chart.hosts),
    [chart, annotations.data],
  );

  const unit = loaded[0]?.unit ?? "";
  const direction = loaded[0]?.direction ?? "none";
  const thresholds = useMemo(() => {
    const found = new Map<number, Threshold>();
    for (const item of series) {
      for (const threshold of matchingThresholds(
        rules.data ?? [],
        { suite, scenario, metric, labels: item.labels },
        unit,
      )) {
        found.set(threshold.ruleId, threshold);
      }
    }
    return [...found.values()];
  }, [rules.data, series, suite, scenario, metric, unit]);

  function choose(values: Record<string, string | null>) {
    const next = new URLSearchParams(search);
    for (const [name, value] of Object.entries(values)) {
      if (value === null) next.delete(name);
      else next.set(name, value);
    }
    setSearch(next);
  }

  if (trends.error)
    return <ErrorState title="Could not load the trend" message={errorMessage(trends.error)} />;
  if (trends.isPending) return <Loading label="Loading trend…" />;
  const drawn = loaded[0];
  const share = drawn && (
    <ShareButton
      what={`${metric} trend of ${formatLabels(drawn.labels) || "this series"}`}
      body={{
        kind: "trend",
        trend: {
          suite,
          scenario,
          metric,
          labels: drawn.labels,
          ...(branch ? { branch } : {}),
        },
      }}
    />
  );
  const history = (
    <HistoryChoice
      trends={loaded}
      names={series.map((item) => formatLabels(item.labels))}
      onBranch={(name) => choose({ branch: name, params: null, run: null })}
      onParams={(value) => choose({ params: value, run: null })}
    />
  );
  if (chart.rows.length === 0) {
    return (
      <>
        {history}
        <EmptyState title="No values of this metric yet">
          No run of these series on this branch with these params has it.
        </EmptyState>
      </>
    );
  }
  const format = (value: number) => formatValue(value, unit);
  const changes = chart.lines.flatMap((line) => line.changes.map((change) => ({ line, change })));
  const windows = chart.lines.flatMap((line) => (line.window ? [{ line, band: line.window }] : []));

  const daily = loaded.some((trend) => trend.resolution === "day");
  return (
    <>
      {history}
      {daily && (
        <p className="warning" role="note">
          This range holds more runs than a chart shows: each point is a day&apos;s median from
          the daily rollups (hover for the day), not a run.
        </p>
      )}
      <p className="muted small">
        {label} in {unit || "no unit"}, {DIRECTION_TEXT[direction] ?? direction}, run after run
        (labelled by commit). Circles and dashed verticals mark change points;{" "}
        {windows.length > 0 ? "the shaded band is the latest run's window, centre to bound; " : ""}
        {thresholds.length > 0 ? "dashed horizontals are SLA thresholds; " : ""}
        {markers.length > 0 ? "grey verticals are annotations (A1, A2…, listed below); " : ""}
        click a point to open its run.
      </p>
      <div className="page-actions">{share}</div>
      <TrendChart
        rows={chart.rows}
        lines={chart.lines}
        thresholds={thresholds}
        annotations={markers}
        unit={unit}
        onOpenRun={(id) => void navigate(`/runs/${String(id)}`)}
      />
      {windows.length > 0 && (
        <ul className="trend-windows" aria-label="Windows">
          {windows.map(({ line, band }) => {
            const evidence = band.evidence;
            const window = evidence.window;
            return (
              <li key={line.key} data-series={line.key}>
                <strong>{line.name}</strong>: run{" "}
                <Link to={`/runs/${String(band.runId)}`}>#{band.runId}</Link>{" "}
                {band.source === "gate" ? "was judged" : "would be judged"} against the window of
                its last {window.runs} runs on {window.branch} (
                <Link to={`/runs/${String(window.first_run_id)}`}>#{window.first_run_id}</Link>
                {window.first_commit ? ` @ ${shortCommit(window.first_commit)}` : ""} to{" "}
                <Link to={`/runs/${String(window.last_run_id)}`}>#{window.last_run_id}</Link>
                {window.last_commit ? ` @ ${shortCommit(window.last_commit)}` : ""}): centre{" "}
                {format(evidence.centre)}, bound {format(evidence.bound)}; its value{" "}
                {format(evidence.value)} ({evidence.outcome}).{" "}
                <span data-testid="smallest-change">
                  The smallest change it lets the gate see:{" "}
                  {smallestChangeText(evidence.smallest_change)}.
                </span>
                {band.source === "computed" && (
                  <span className="muted small">
                    {" "}
                    Computed for this metric alone at a false-alarm level of{" "}
                    {formatShare(evidence.level)}: the gate did not judge it against a window.
                  </span>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <TrendAnnotations markers={markers} suite={suite} host={host} />
      <h2 id="change-points">Change points</h2>
      {changes.length === 0 ? (
        <p className="muted">No change point in this history.</p>
      ) : (
        <div className="table-scroll">
          <table className="table" aria-labelledby="change-points">
            <thead>
              <tr>
                <th scope="col">Series</th>
                <th scope="col">First run after</th>
                <th scope="col" className="num">
                  Before
                </th>
                <th scope="col" className="num">
                  After
                </th>
                <th scope="col" className="num">
                  Change
                </th>
              </tr>
            </thead>
            <tbody>
              {changes.map(({ line, change }) => (
                <tr key={`${line.key}-${String(change.x)}`}>
                  <th scope="row">{line.name}</th>
                  <td>
                    {change.runId === null ? (
                      formatDateTime(new Date(change.t).toISOString()).slice(0, 10)
                    ) : (
                      <Link to={`/runs/${String(change.runId)}`}>#{change.runId}</Link>
                    )}
                  </td>
                  <td className="num">{format(change.before)}</td>
                  <td className="num">{format(change.after)}</td>
                  <td className="num">{change.label}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <details className="points">
        <summary>
          Every point ({chart.rows.length} {daily ? "days" : "runs"})
        </summary>
        <div className="table-scroll">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Commit</th>
                <th scope="col">Started</th>
                {chart.lines.map((line) => (
                  <th key={line.key} scope="col" className="num">
                    {line.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {[...chart.rows].reverse().map((row) => (
                <tr key={row.index}>
                  <td>
                    {row.runId === null ? (
                      "day"
                    ) : (
                      <Link to={`/runs/${String(row.runId)}`}>#{row.runId}</Link>
                    )}
                  </td>
                  <td className="mono">{shortCommit(row.commit)}</td>
                  <td className="nowrap">{formatDateTime(new Date(row.t).toISOString())}</td>
                  {chart.lines.map((line) => (
                    <td key={line.key} className="num">
                      {row.values[line.key] === undefined ? "" : format(row.values[line.key]!)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </>
  );
}

/** The start of a range of `days` days back, at midnight UTC (stable within a day, so the
 * query key does not change on every render). */
function sinceDays(days: number): string {
  const today = new Date();
  today.setUTCHours(0, 0, 0, 0);
  return new Date(today.getTime() - days * 86_400_000).toISOString();
}
