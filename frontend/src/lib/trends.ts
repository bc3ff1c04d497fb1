/**
 * Shaping trends for the chart: points on a time axis, change points as markers, and the SLA
 * threshold of the matching static rules converted into the metric's unit (as the backend
 * evaluates them: latency thresholds in any time unit, "%" for ratios).
 */

import type { ChangePoint, SlaRuleRead, TrendPoint } from "../api/types";
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

/** A change point sits on the first run after the change (`index` into the points). */
export function changeMarkers(points: TrendPoint[], changes: ChangePoint[]): ChangeMarker[] {
  return changes.flatMap((change) => {
    const point = points[change.index];
    if (point === undefined) return [];
    return [
      {
        t: new Date(point.started_at).getTime(),
        value: point.value,
        runId: change.run_id,
        before: change.before,
        after: change.after,
        label: formatDeltaPct(change.delta_pct),
      },
    ];
  });
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

/** A chart row: one run (or one day of rollups), and each series' value in it. */
export interface MergedTrendRow {
  t: number;
  runId: number | null;
  values: Record<string, number>;
}

/**
 * Several series' trends as one table of rows, one per run (the series of a run share its
 * start time), oldest first, so the chart has one x axis and one tooltip.
 */
export function mergeTrendRows(trends: { key: string; points: TrendPoint[] }[]): MergedTrendRow[] {
  const rows = new Map<string, MergedTrendRow>();
  for (const trend of trends) {
    for (const row of trendRows(trend.points)) {
      // A run's series share its row; days of rollups share the day's.
      const key = row.runId === null ? `day:${String(row.t)}` : `run:${String(row.runId)}`;
      let merged = rows.get(key);
      if (merged === undefined) {
        merged = { t: row.t, runId: row.runId, values: {} };
        rows.set(key, merged);
      }
      merged.values[trend.key] = row.value;
    }
  }
  return [...rows.values()].sort((a, b) => a.t - b.t || (a.runId ?? 0) - (b.runId ?? 0));
}

export interface SeriesChoice {
  key: string;
  labels: Record<string, string>;
}

/**
 * The series and metrics a scenario's recent runs have: their union, series in the order met
 * (newest run first), metrics by name; "count" is a sample count, not a metric to trend.
 */
export function scenarioCatalogue<M extends { name: string }>(
  runs: { series: { labels: Record<string, string> }[]; metric_info: Record<string, M> }[],
): { series: SeriesChoice[]; metrics: M[] } {
  const series = new Map<string, SeriesChoice>();
  const metrics = new Map<string, M>();
  for (const run of runs) {
    for (const item of run.series) {
      const key = labelsParam(item.labels);
      if (!series.has(key)) series.set(key, { key, labels: item.labels });
    }
    for (const info of Object.values(run.metric_info))
      if (info.name !== "count") metrics.set(info.name, info);
  }
  return { series: [...series.values()], metrics: [...metrics.values()] };
}
