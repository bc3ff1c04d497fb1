/**
 * Sparklines on one scale: each row's values as their change in % against the row's median,
 * drawn against a domain shared by every row of the table, so a 2 % wobble stays flat beside a
 * 30 % step (each row scaled to its own range drew both as the same full-height step).
 */

/** Values as their change in % against the median of those present (nulls kept). */
export function relativeToMedian(values: (number | null)[]): (number | null)[] {
  const present = values.filter((value): value is number => value !== null).sort((a, b) => a - b);
  const median = present[Math.floor((present.length - 1) / 2)];
  if (median === undefined || median <= 0) return values.map(() => null);
  return values.map((value) => (value === null ? null : (value / median - 1) * 100));
}

/** The domain every row shares: ± the largest change drawn, and at least ± `floor` %. */
export function sharedDomain(rows: (number | null)[][], floor = 10): [number, number] {
  const largest = Math.max(
    floor,
    ...rows.flatMap((row) => row.filter((v): v is number => v !== null).map(Math.abs)),
  );
  return [-largest, largest];
}
