/**
 * Load-latency curves: a run that sweeps an axis (concurrency, rate, devices) drawn as a
 * metric against that axis, one line per group of its other labels (per server, per mode).
 * A comparison overlays the baseline's and the candidate's lines and marks each point with
 * its verdict (from the API's compare result, never recomputed here).
 */

import type { MetricInfo, SeriesDelta, SeriesRead, Sweep, Verdict } from "../api/types";
import { formatLabels, stringLabels } from "./format";
import { curveKeys } from "./vocabulary";

export interface CurvePoint {
  x: number;
  y: number;
  verdict?: Verdict;
}

export interface Curve {
  key: string;
  name: string;
  /** The group's index, so a group keeps its colour across a page's charts. */
  group: number;
  dashed: boolean;
  points: CurvePoint[];
}

/** One chart's data: rows by x, each with a value per curve key. */
export interface CurveRow {
  x: number;
  values: Record<string, number | undefined>;
  verdicts: Record<string, Verdict | undefined>;
}

/**
 * The metrics a sweep is drawn for: the curves' latencies (p50 and p99), then every rate the
 * run reports (a metric whose unit is per second: throughput, msg/s), in the run's metric order.
 */
export function curveMetrics(metricInfo: Record<string, MetricInfo>, series: SeriesRead[]): string[] {
  const reported = new Set(series.flatMap((item) => Object.keys(item.metrics)));
  const rates = Object.values(metricInfo)
    .filter((info) => isRate(info.unit) && reported.has(info.name))
    .map((info) => info.name);
  return [...curveKeys(), ...rates];
}

/** The metrics a comparison of two sweeps is drawn for: the same, among the compared ones. */
export function compareCurveMetrics(series: SeriesDelta[]): string[] {
  const rates = series
    .flatMap((item) => item.metrics)
    .filter((delta) => isRate(delta.unit))
    .map((delta) => delta.metric);
  return [...curveKeys(), ...new Set(rates)];
}

/** A series' value of a metric: its summary (latency, ns) or its metric (trials' median). */
export function seriesValue(series: SeriesRead, metric: string): number | undefined {
  const summary = series.summary as unknown as Record<string, number | undefined>;
  return metric in summary ? summary[metric] : series.metrics[metric];
}

/** The curves of one run: a line per group of labels other than the sweep axis. */
export function runCurves(series: SeriesRead[], sweep: Sweep, metric: string): Curve[] {
  const groups = new Map<string, { labels: Record<string, string>; points: CurvePoint[] }>();
  for (const item of series) {
    const x = Number(item.labels[sweep.axis]);
    const y = seriesValue(item, metric);
    if (!Number.isFinite(x) || y === undefined) continue;
    const rest = withoutAxis(item.labels, sweep.axis);
    const key = formatLabels(rest);
    const group = groups.get(key) ?? { labels: rest, points: [] };
    group.points.push({ x, y });
    groups.set(key, group);
  }
  return [...groups.entries()].map(([name, group], index) => ({
    key: `run:${name}`,
    name,
    group: index,
    dashed: false,
    points: group.points.sort((a, b) => a.x - b.x),
  }));
}

/**
 * The curves of a comparison of two sweeps: per group of matched labels other than the axis,
 * the baseline (dashed) and the candidate (solid), each point with the metric's verdict.
 */
export function compareCurves(series: SeriesDelta[], axis: string, metric: string): Curve[] {
  const groups = new Map<string, { baseline: CurvePoint[]; candidate: CurvePoint[] }>();
  for (const item of series) {
    const labels = stringLabels(item.labels);
    const x = Number(labels[axis]);
    const delta = item.metrics.find((entry) => entry.metric === metric);
    if (!Number.isFinite(x) || delta === undefined) continue;
    const key = formatLabels(withoutAxis(labels, axis));
    const group = groups.get(key) ?? { baseline: [], candidate: [] };
    group.baseline.push({ x, y: delta.baseline });
    group.candidate.push({ x, y: delta.candidate, verdict: delta.verdict });
    groups.set(key, group);
  }
  return [...groups.entries()].flatMap(([name, group], index) => [
    {
      key: `baseline:${name}`,
      name: `${name} baseline`,
      group: index,
      dashed: true,
      points: group.baseline.sort((a, b) => a.x - b.x),
    },
    {
      key: `candidate:${name}`,
      name: `${name} candidate`,
      group: index,
      dashed: false,
      points: group.candidate.sort((a, b) => a.x - b.x),
    },
  ]);
}

/** Curves as chart rows, one per x value, sorted. */
export function curveRows(curves: Curve[]): CurveRow[] {
  const rows = new Map<number, CurveRow>();
  for (const curve of curves) {
    for (const point of curve.points) {
      const row = rows.get(point.x) ?? { x: point.x, values: {}, verdicts: {} };
      row.values[curve.key] = point.y;
      row.verdicts[curve.key] = point.verdict;
      rows.set(point.x, row);
    }
  }
  return [...rows.values()].sort((a, b) => a.x - b.x);
}

/** A log x axis when the sweep spans a factor of ten or more (10 .. 1000 connections). */
export function logScale(rows: CurveRow[]): boolean {
  const xs = rows.map((row) => row.x).filter((x) => x > 0);
  return xs.length > 1 && Math.max(...xs) / Math.min(...xs) >= 10;
}

/**
 * The axes of a run one may compare two series along: labels with two or more values among
 * its series, other than the sweep axis (zig vs go, baseline vs tuned, actor vs sync).
 */
export function comparableAxes(series: SeriesRead[], sweepAxis?: string): Record<string, string[]> {
  const values = new Map<string, Set<string>>();
  for (const item of series) {
    for (const [key, value] of Object.entries(item.labels)) {
      if (key === sweepAxis) continue;
      values.set(key, (values.get(key) ?? new Set()).add(value));
    }
  }
  return Object.fromEntries(
    [...values.entries()].filter(([, set]) => set.size > 1).map(([key, set]) => [key, [...set]]),
  );
}

/** A metric counted per second (throughput, msg/s): a load-latency curve of its own. */
function isRate(unit: string): boolean {
  return unit.endsWith("/s");
}

function withoutAxis(labels: Record<string, string>, axis: string): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).filter(([key]) => key !== axis));
}

