/**
 * Human-readable numbers for latencies (nanoseconds), rates and percentiles, and for any value
 * with the unit the API gives it (`metric_info`, compare and trend units): never a guessed one.
 */

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

/**
 * Time units a value (or an SLA threshold) may be written in, as multiples of a nanosecond:
 * the API's table (`GET /api/v1/vocabulary`), set with the rest of the vocabulary
 * (`configureVocabulary`). Until then only nanoseconds, the unit of every latency, are known.
 */
let timeUnits: Readonly<Record<string, number>> = { ns: 1 };

export function configureTimeUnits(units: Readonly<Record<string, number>>): void {
  timeUnits = { ...units, ns: 1 };
}

/** A time unit's size in nanoseconds, or undefined for a unit that is not a time. */
export function nanosecondsPer(unit: string): number | undefined {
  return timeUnits[unit];
}

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

/** 0.995 -> "99.5%": a ratio (success rate) as people write it. */
export function formatRatio(ratio: number | null | undefined): string {
  if (ratio == null || !Number.isFinite(ratio)) return MISSING;
  return `${String(roundDecimals(ratio * 100, 2))}%`;
}

/**
 * Three significant digits below 1000, whole and grouped from there: 12.345 -> "12.3",
 * 12345.6 -> "12,346".
 */
export function formatNumber(value: number | null | undefined): string {
  if (value == null || !Number.isFinite(value)) return MISSING;
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString("en-US");
  return String(roundSignificant(value));
}

/**
 * A value in the unit the API named: "ns" (and other time units) as µs / ms, rates as
 * "115.6k req/s", "ratio" as a percentage, "count" grouped, anything else with its unit.
 */
export function formatValue(value: number | null | undefined, unit: string): string {
  if (value == null || !Number.isFinite(value)) return MISSING;
  const timeScale = nanosecondsPer(unit);
  if (timeScale !== undefined) return formatNs(value * timeScale);
  if (unit.endsWith("/s")) return formatRate(value, unit);
  switch (unit) {
    case "ratio":
      return formatRatio(value);
    case "%":
      return `${String(roundDecimals(value, 2))}%`;
    case "count":
      return Number.isInteger(value) ? formatCount(value) : formatNumber(value);
    case "":
      return formatNumber(value);
    default:
      return `${formatNumber(value)} ${unit}`;
  }
}

/** A difference with its sign: +12.3 µs, −45.7k req/s, ±0 for none. */
export function formatDelta(delta: number | null | undefined, unit: string): string {
  if (delta == null || !Number.isFinite(delta)) return MISSING;
  const magnitude = formatValue(Math.abs(delta), unit);
  if (/^0(\D|$)/.test(magnitude)) return `±${magnitude}`;
  return `${delta > 0 ? "+" : "−"}${magnitude}`;
}

/** A relative change in percent: +30.1%, −4.6%, ±0%; one decimal, none from 100 % on. */
export function formatDeltaPct(pct: number | null | undefined): string {
  if (pct == null || !Number.isFinite(pct)) return MISSING;
  const rounded = roundDecimals(Math.abs(pct), Math.abs(pct) >= 100 ? 0 : 1);
  if (rounded === 0) return "±0%";
  return `${pct > 0 ? "+" : "−"}${String(rounded)}%`;
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
