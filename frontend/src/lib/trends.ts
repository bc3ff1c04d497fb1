/**
 * Shaping trends for the chart: runs in their order on the x axis (runs started in the same
 * second each keep their own place), commits as its labels, change points as markers, the
 * latest run's window as a band, and the SLA threshold of the matching static rules converted
 * into the metric's unit (as the backend evaluates them: latency thresholds in any time unit,
 * "%" for ratios).
 */

import type {
  ChangePoint,
  GateEvidence,
  SlaRuleRead,
  TrendParamsSet,
  TrendPoint,
  TrendWindow,
} from "../api/types";
import { formatDeltaPct, nanosecondsPer } from "./units";

export interface TrendRow {
  /** Milliseconds since the epoch: the run's start (or the day's, from the rollups). */
  t: number;
  value: number;
  /** null for a day of rollups, which stands for several runs. */
  runId: number | null;
  commit: string | null;
  branch: string | null;
  host: string | null;
}

export interface ChangeMarker {
  /** The row of the first run after the change (its place on the x axis). */
  x: number;
  t: number;
  value: number;
  runId: number | null;
  before: number;
  after: number;
  label: string;
}

export interface Threshold {
  ruleId: number;
  name: string;
  value: number;
  severity: SlaRuleRead["severity"];
}

export interface TrendTarget {
  suite: string;
  scenario: string;
  metric: string;
  labels: Record<string, string>;
}

export function trendRows(points: TrendPoint[]): TrendRow[] {
  return points
    .map((point) => ({
      t: new Date(point.started_at).getTime(),
      value: point.value,
      runId: point.run_id,
      commit: point.commit,
      branch: point.branch,
      host: point.host_name,
    }))
    .filter((row) => Number.isFinite(row.t) && Number.isFinite(row.value));
}

/**
 * A change point sits on the first run after the change (`index` into the points), at that
 * run's row of the chart.
 */
export function changeMarkers(
  points: TrendPoint[],
  changes: ChangePoint[],
  rows: MergedTrendRow[],
): ChangeMarker[] {
  return changes.flatMap((change) => {
    const point = points[change.index];
    if (point === undefined) return [];
    const t = new Date(point.started_at).getTime();
    const x = rowIndex(rows, point.run_id, t);
    if (x === undefined) return [];
    return [
      {
        x,
        t,
        value: point.value,
        runId: change.run_id,
        before: change.before,
        after: change.after,
        label: formatDeltaPct(change.delta_pct),
      },
    ];
  });
}

/** The row of a run (or of a day of rollups, by its time). */
export function rowIndex(
  rows: MergedTrendRow[],
  runId: number | null,
  t?: number,
): number | undefined {
  const row =
    runId === null
      ? rows.find((item) => item.runId === null && item.t === t)
      : rows.find((item) => item.runId === runId);
  return row?.index;
}

/** The thresholds of the enabled static rules that apply to this series and metric. */
export function matchingThresholds(
  rules: SlaRuleRead[],
  target: TrendTarget,
  metricUnit: string,
): Threshold[] {
  return rules
    .filter(
      (rule) =>
        rule.enabled &&
        rule.kind === "static" &&
        rule.suite === target.suite &&
        rule.metric === target.metric &&
        (rule.scenario === null || rule.scenario === target.scenario) &&
        Object.entries(rule.series_selector).every(([key, value]) => target.labels[key] === value),
    )
    .map((rule) => ({
      ruleId: rule.id,
      name: rule.name,
      value: thresholdInUnit(rule, metricUnit),
      severity: rule.severity,
    }));
}

/** A rule's threshold in the metric's unit: "2 ms" on a ns metric is 2,000,000. */
export function thresholdInUnit(
  rule: Pick<SlaRuleRead, "threshold" | "unit">,
  metricUnit: string,
): number {
  if (rule.unit === "%") return rule.threshold / 100;
  const from = nanosecondsPer(rule.unit);
  const to = nanosecondsPer(metricUnit);
  if (from !== undefined && to !== undefined) return (rule.threshold * from) / to;
  return rule.threshold;
}

/**
 * When a rule breaches, as the API evaluates it (`op` is the breach condition): "breach if
 * p99 > 2 ms"; a relative rule measures the change for the worse against the baseline.
 */
export function describeRule(
  rule: Pick<SlaRuleRead, "metric" | "op" | "threshold" | "unit" | "kind">,
): string {
  const glued = rule.unit === "%" || rule.unit === "";
  const amount = `${String(rule.threshold)}${glued ? rule.unit : ` ${rule.unit}`}`;
  if (rule.kind === "relative") {
    return `breach if ${rule.metric} is worse than the baseline by ${rule.op} ${amount}`;
  }
  return `breach if ${rule.metric} ${rule.op} ${amount}`;
}

/** The trend query's labels parameter: a JSON object, keys sorted so equal series share a key. */
export function labelsParam(labels: Record<string, string>): string {
  return JSON.stringify(
    Object.fromEntries(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b))),
  );
}

/**
 * The trends page's URL for a view: a metric of some series (by their labels), drawn around a
 * run's history (its branch and params, its point included) when one is named.
 */
export function trendHref(view: {
  suite: string;
  scenario: string;
  metric?: string;
  series?: Record<string, string>[];
  runId?: number | null;
}): string {
  const search = new URLSearchParams({ suite: view.suite, scenario: view.scenario });
  if (view.metric) search.set("metric", view.metric);
  for (const labels of view.series ?? []) search.append("series", labelsParam(labels));
  if (view.runId != null) search.set("run", String(view.runId));
  return `/trends?${search.toString()}`;
}

/** A chart row: one run (or one day of rollups), and each series' value in it. */
export interface MergedTrendRow {
  /** Its place on the x axis: rows in their order, 0 for the oldest. */
  index: number;
  t: number;
  runId: number | null;
  commit: string | null;
  branch: string | null;
  values: Record<string, number>;
}

/**
 * Several series' trends as one table of rows, one per run (the series of a run share it),
 * oldest first, so the chart has one x axis and one tooltip. Runs started in the same second
 * keep their order of arrival (their ids) and each its own row.
 */
export function mergeTrendRows(trends: { key: string; points: TrendPoint[] }[]): MergedTrendRow[] {
  const rows = new Map<string, MergedTrendRow>();
  for (const trend of trends) {
    for (const row of trendRows(trend.points)) {
      // A run's series share its row; days of rollups share the day's.
      const key = row.runId === null ? `day:${String(row.t)}` : `run:${String(row.runId)}`;
      let merged = rows.get(key);
      if (merged === undefined) {
        merged = {
          index: 0,
          t: row.t,
          runId: row.runId,
          commit: row.commit,
          branch: row.branch,
          values: {},
        };
        rows.set(key, merged);
      }
      merged.values[trend.key] = row.value;
    }
  }
  return [...rows.values()]
    .sort((a, b) => a.t - b.t || (a.runId ?? 0) - (b.runId ?? 0))
    .map((row, index) => ({ ...row, index }));
}

/** At most `most` evenly spaced rows to label on the x axis, the first and the last among them. */
export function indexTicks(first: number, last: number, most = 12): number[] {
  const count = last - first + 1;
  if (count <= 0) return [];
  if (count <= most) return Array.from({ length: count }, (_, index) => first + index);
  const step = (count - 1) / (most - 1);
  return [
    ...new Set(Array.from({ length: most }, (_, index) => first + Math.round(index * step))),
  ];
}

type LabelledRow = Pick<MergedTrendRow, "t" | "runId" | "commit">;

/**
 * The rows' labels on the x axis: a row's commit, else its run, else its day. Commits are
 * shortened to the fewest characters, at least 7, that keep the distinct commits drawn apart
 * (`feed0001...` and `feed0002...` both read `feed000` at 7: `feed0001` and `feed0002` here).
 */
export function rowLabels(rows: LabelledRow[]): string[] {
  const commits = [
    ...new Set(rows.flatMap((row) => (row.runId !== null && row.commit ? [row.commit] : []))),
  ];
  let length = 7;
  const distinct = () => new Set(commits.map((commit) => commit.slice(0, length))).size;
  while (distinct() < commits.length) length += 1;
  return rows.map((row) => {
    if (row.runId === null) return new Date(row.t).toISOString().slice(5, 10);
    return row.commit ? row.commit.slice(0, length) : `#${String(row.runId)}`;
  });
}

/** A series' line on a trend chart, with its change points and its latest run's window. */
export interface TrendLine {
  key: string;
  name: string;
  seriesIndex: number;
  changes: ChangeMarker[];
  /** The latest run's window: its centre and bound from its first run to the run judged. */
  window: WindowBand | null;
}

/** The band a latest run's window draws: from its first run to the run judged, centre to bound. */
export interface WindowBand {
  x1: number;
  x2: number;
  centre: number;
  bound: number;
  runId: number;
  source: TrendWindow["source"];
  evidence: GateEvidence;
}

/**
 * The window of a trend's latest run on the chart's rows: it spans from its first run (the
 * first row when that run is not drawn) to the run it judged; none when that run is not drawn.
 */
export function windowBand(
  rows: MergedTrendRow[],
  window: TrendWindow | null | undefined,
): WindowBand | null {
  if (!window) return null;
  const x2 = rowIndex(rows, window.run_id);
  if (x2 === undefined) return null;
  const x1 = rowIndex(rows, window.evidence.window.first_run_id) ?? 0;
  return {
    x1: Math.min(x1, x2),
    x2,
    centre: window.evidence.centre,
    bound: window.evidence.bound,
    runId: window.run_id,
    source: window.source,
    evidence: window.evidence,
  };
}

/** 0.0412 -> "4.1%": a relative change, unsigned. */
export function formatShare(fraction: number): string {
  return `${String(Number((fraction * 100).toFixed(1)))}%`;
}

/**
 * The smallest change a window lets the gate see, by candidate trials:
 * "4.1% with 1 trial, 2.6% with 3, 2.1% with 5".
 */
export function smallestChangeText(smallest: Record<string, number>): string {
  return Object.entries(smallest)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([trials, value], index) => {
      const noun = index > 0 ? "" : trials === "1" ? " trial" : " trials";
      return `${formatShare(value)} with ${trials}${noun}`;
    })
    .join(", ");
}

/** {connections: 50, load: "closed"} -> "connections=50, load=closed"; {} -> "(none)". */
export function formatParams(params: Record<string, unknown>): string {
  const entries = Object.entries(params).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return "(none)";
  return entries
    .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(", ");
}

/** The trend query's params parameter: JSON, keys sorted, so equal sets share a URL. */
export function paramsParam(params: Record<string, unknown>): string {
  return JSON.stringify(
    Object.fromEntries(Object.entries(params).sort(([a], [b]) => a.localeCompare(b))),
  );
}

/**
 * The params sets several series' trends offer, once each, the most recent first: a set's
 * runs are those of the series with the most of them (the series of a run share its params).
 */
export function mergeParamsSets(sets: TrendParamsSet[][]): TrendParamsSet[] {
  const found = new Map<string, TrendParamsSet>();
  for (const item of sets.flat()) {
    const key = paramsParam(item.params);
    const known = found.get(key);
    if (!known) found.set(key, item);
    else
      found.set(key, {
        ...known,
        runs: Math.max(known.runs, item.runs),
        drawn: known.drawn || item.drawn,
        last_run_id: Math.max(known.last_run_id, item.last_run_id),
        last_started_at:
          known.last_started_at > item.last_started_at
            ? known.last_started_at
            : item.last_started_at,
      });
  }
  return [...found.values()].sort(
    (a, b) => b.last_started_at.localeCompare(a.last_started_at) || b.last_run_id - a.last_run_id,
  );
}

export interface SeriesChoice {
  key: string;
  labels: Record<string, string>;
  /** The newest run's verdict names the series: a regression, a suspected one, an SLA breach. */
  failing: boolean;
}

/** The API's catalogue of a scenario's series as the trend's choices, keyed by their labels. */
export function trendChoices(
  series: { labels: Record<string, string>; failing: boolean }[],
): SeriesChoice[] {
  return series.map((item) => ({
    key: labelsParam(item.labels),
    labels: item.labels,
    failing: item.failing,
  }));
}
