/** Human-readable numbers for latencies (nanoseconds), rates and percentiles. */

const NS_UNITS = [
  { unit: "ns", scale: 1 },
  { unit: "µs", scale: 1e3 },
  { unit: "ms", scale: 1e6 },
  { unit: "s", scale: 1e9 },
] as const;

const RATE_UNITS = [
  { suffix: "", scale: 1 },
  { suffix: "k", scale: 1e3 },
  { suffix: "M", scale: 1e6 },
  { suffix: "G", scale: 1e9 },
] as const;

const MISSING = "—";

/** 350000 -> "350 µs", 1250000 -> "1.25 ms", 2.1e9 -> "2.1 s" (three significant digits). */
export function formatNs(ns: number | null | undefined): string {
  if (ns == null || !Number.isFinite(ns)) return MISSING;
  let index = unitIndex(Math.abs(ns), NS_UNITS);
  let value = roundSignificant(ns / NS_UNITS[index]!.scale);
  // Rounding can carry into the next unit: 999999 ns is "1 ms", not "1000 µs".
  if (Math.abs(value) >= 1000 && index < NS_UNITS.length - 1) {
    index += 1;
    value = roundSignificant(ns / NS_UNITS[index]!.scale);
  }
  return `${String(value)} ${NS_UNITS[index]!.unit}`;
}

/** 115554 -> "115.6k req/s", 950 -> "950 req/s". */
export function formatRate(perSecond: number | null | undefined, unit = "req/s"): string {
  if (perSecond == null || !Number.isFinite(perSecond)) return MISSING;
  let index = unitIndex(Math.abs(perSecond), RATE_UNITS);
  let value = roundDecimals(perSecond / RATE_UNITS[index]!.scale, 1);
  if (Math.abs(value) >= 1000 && index < RATE_UNITS.length - 1) {
    index += 1;
    value = roundDecimals(perSecond / RATE_UNITS[index]!.scale, 1);
  }
  return `${String(value)}${RATE_UNITS[index]!.suffix} ${unit}`;
}

/** 99.9 -> "99.9%", 50 -> "50%"; hides floating-point noise such as 99.99000000000001. */
export function formatPercentile(percentile: number): string {
  return `${String(roundDecimals(percentile, 4))}%`;
}

/** 1234567 -> "1,234,567". */
export function formatCount(count: number | null | undefined): string {
  if (count == null || !Number.isFinite(count)) return MISSING;
  return count.toLocaleString("en-US");
}

function unitIndex(magnitude: number, units: readonly { scale: number }[]): number {
  let index = 0;
  while (index < units.length - 1 && magnitude >= units[index + 1]!.scale) index += 1;
  return index;
}

function roundSignificant(value: number): number {
  const magnitude = Math.abs(value);
  const decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2;
  return roundDecimals(value, decimals);
}

function roundDecimals(value: number, decimals: number): number {
  // Number(...) drops trailing zeros: "2.10" -> 2.1; adding 0 turns -0 into 0.
  return Number(value.toFixed(decimals)) + 0;
}
