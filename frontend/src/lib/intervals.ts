/**
 * Latency over time: a trial's intervals (`{t_s, count, p50, p90, p99, p999, max}`, latency in
 * ns) as chart rows. The API passes intervals through as stored, so each one is checked; its
 * latencies are the summary's keys it carries.
 */

import { latencyKeys } from "./vocabulary";

export interface IntervalRow {
  t: number;
  count: number | null;
  /** Latency by summary key (p50, p99, max, ...), in ns. */
  values: Partial<Record<string, number>>;
}

export function intervalRows(
  intervals: readonly Record<string, unknown>[] | null | undefined,
): IntervalRow[] {
  if (!intervals) return [];
  const rows: IntervalRow[] = [];
  for (const interval of intervals) {
    const t = interval.t_s;
    if (typeof t !== "number" || !Number.isFinite(t)) continue;
    const values: Partial<Record<string, number>> = {};
    for (const key of latencyKeys()) {
      const value = interval[key];
      if (typeof value === "number" && Number.isFinite(value)) values[key] = value;
    }
    const count = typeof interval.count === "number" ? interval.count : null;
    rows.push({ t, count, values });
  }
  return rows.sort((a, b) => a.t - b.t);
}

/** The latency keys present in at least one row, in the vocabulary's order. */
export function intervalKeys(rows: IntervalRow[]): string[] {
  return latencyKeys().filter((key) => rows.some((row) => row.values[key] !== undefined));
}

/** Trials of a series that carry intervals, by index. */
export function trialsWithIntervals<
  T extends { index: number; intervals: Record<string, unknown>[] | null },
>(trials: T[]): T[] {
  return trials.filter((trial) => (trial.intervals?.length ?? 0) > 0);
}
