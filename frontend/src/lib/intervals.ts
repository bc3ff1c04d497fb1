/**
 * Latency over time: a trial's intervals (`{t_s, count, p50, p90, p99, p999, max}`, latency in
 * ns) as chart rows. The API passes intervals through as stored, so each one is checked.
 */

export const INTERVAL_KEYS = ["p50", "p90", "p99", "p999", "max"] as const;
export type IntervalKey = (typeof INTERVAL_KEYS)[number];

export interface IntervalRow {
  t: number;
  count: number | null;
  values: Partial<Record<IntervalKey, number>>;
}

export function intervalRows(
  intervals: readonly Record<string, unknown>[] | null | undefined,
): IntervalRow[] {
  if (!intervals) return [];
  const rows: IntervalRow[] = [];
  for (const interval of intervals) {
    const t = interval.t_s;
    if (typeof t !== "number" || !Number.isFinite(t)) continue;
    const values: Partial<Record<IntervalKey, number>> = {};
    for (const key of INTERVAL_KEYS) {
      const value = interval[key];
      if (typeof value === "number" && Number.isFinite(value)) values[key] = value;
    }
    const count = typeof interval.count === "number" ? interval.count : null;
    rows.push({ t, count, values });
  }
  return rows.sort((a, b) => a.t - b.t);
}

/** The percentiles present in at least one row, in order. */
export function intervalKeys(rows: IntervalRow[]): IntervalKey[] {
  return INTERVAL_KEYS.filter((key) => rows.some((row) => row.values[key] !== undefined));
}

/** Trials of a series that carry intervals, by index. */
export function trialsWithIntervals<
  T extends { index: number; intervals: Record<string, unknown>[] | null },
>(trials: T[]): T[] {
  return trials.filter((trial) => (trial.intervals?.length ?? 0) > 0);
}
