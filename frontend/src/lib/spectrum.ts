/**
 * Shaping percentile spectra for the chart. The x axis is 1 / (1 - p), so that on a log scale
 * each "nine" (90 %, 99 %, 99.9 %, ...) takes the same width.
 */

import { formatLabels } from "./format";
import { formatPercentile } from "./units";

export interface SpectrumPoint {
  percentile: number;
  value: number;
}

/** What the chart needs of one series' spectrum (the API's Spectrum fits this shape). */
export interface SpectrumInput {
  series_id: number;
  labels: Record<string, string>;
  corrected: SpectrumPoint[];
  uncorrected: SpectrumPoint[] | null;
}

/** One line to draw; an uncorrected view shares its series' colour and is dashed. */
export interface SpectrumLine {
  key: string;
  name: string;
  seriesIndex: number;
  dashed: boolean;
  points: SpectrumPoint[];
}

/** One chart row: a percentile and the value of each line there (absent when a line has none). */
export interface SpectrumRow {
  x: number;
  percentile: number;
  values: Record<string, number>;
}

export interface PercentileTick {
  x: number;
  label: string;
}

export const TICK_PERCENTILES = [50, 90, 99, 99.9, 99.99] as const;

/** 50 -> 2, 90 -> 10, 99 -> 100, 99.9 -> 1000; 100 itself is off the scale. */
export function percentileToX(percentile: number): number {
  return 1 / (1 - percentile / 100);
}

export function xToPercentile(x: number): number {
  return 100 * (1 - 1 / x);
}

export function spectrumLines(spectra: SpectrumInput[]): SpectrumLine[] {
  return spectra.flatMap((spectrum, seriesIndex) => {
    const name = formatLabels(spectrum.labels);
    const corrected: SpectrumLine = {
      key: `s${spectrum.series_id}`,
      name,
      seriesIndex,
      dashed: false,
      points: spectrum.corrected,
    };
    if (spectrum.uncorrected === null) return [corrected];
    return [
      corrected,
      {
        key: `s${spectrum.series_id}-uncorrected`,
        name: `${name} (uncorrected)`,
        seriesIndex,
        dashed: true,
        points: spectrum.uncorrected,
      },
    ];
  });
}

/**
 * Merges the lines' points into rows sorted by percentile. The 100 % point (each line's max)
 * is off the 1 / (1 - p) scale: it is drawn one "nine" past the last other point (x ten times
 * as far) and labelled "max" (`xLabel`).
 */
export function spectrumRows(lines: SpectrumLine[]): SpectrumRow[] {
  const rows = new Map<string, SpectrumRow>();
  const maxima: Record<string, number> = {};
  for (const line of lines) {
    for (const point of line.points) {
      if (point.percentile === 100) maxima[line.key] = point.value;
      if (!(point.percentile >= 0 && point.percentile < 100)) continue;
      const id = point.percentile.toFixed(9);
      let row = rows.get(id);
      if (row === undefined) {
        row = { x: percentileToX(point.percentile), percentile: point.percentile, values: {} };
        rows.set(id, row);
      }
      row.values[line.key] = point.value;
    }
  }
  const sorted = [...rows.values()].sort((a, b) => a.percentile - b.percentile);
  const last = sorted[sorted.length - 1];
  if (last !== undefined && Object.keys(maxima).length > 0) {
    sorted.push({ x: last.x * 10, percentile: 100, values: maxima });
  }
  return sorted;
}

/** Axis and tooltip labels of a chart's x values: "99.9%", and "max" for the 100 % point. */
export function xLabel(rows: SpectrumRow[]): (x: number) => string {
  const top = rows[rows.length - 1];
  return (x) =>
    top?.percentile === 100 && Math.abs(x - top.x) <= 1e-9 * top.x ? "max" : formatX(x);
}

/** The standard ticks that fall within the rows' x range, and "max" when it is drawn. */
export function percentileTicks(rows: SpectrumRow[]): PercentileTick[] {
  if (rows.length === 0) return [];
  const top = rows[rows.length - 1]!;
  const finite = top.percentile === 100 ? rows.slice(0, -1) : rows;
  const slack = 1e-9;
  const [minX, maxX] = finite.length > 0 ? xDomain(finite) : [top.x, top.x];
  const ticks = TICK_PERCENTILES.map((p) => ({ x: percentileToX(p), label: formatPercentile(p) }))
    .filter((tick) => tick.x >= minX * (1 - slack) && tick.x <= maxX * (1 + slack));
  return top.percentile === 100 ? [...ticks, { x: top.x, label: "max" }] : ticks;
}

export function xDomain(rows: SpectrumRow[]): [number, number] {
  if (rows.length === 0) return [1, percentileToX(99.99)];
  return [rows[0]!.x, rows[rows.length - 1]!.x];
}

/** Axis and tooltip label for an x value: 1000 -> "99.9%". */
export function formatX(x: number): string {
  return formatPercentile(xToPercentile(x));
}

/** A matched series of a comparison: its baseline and candidate spectra. */
export interface SpectrumPair {
  labels: Record<string, string>;
  baseline: SpectrumInput;
  candidate: SpectrumInput;
}

/**
 * Lines for a comparison: per matched series, the candidate solid and the baseline dashed in the
 * same colour (both corrected for coordinated omission where the run is open-loop), each named
 * after its side ("baseline" and "candidate", or what tells the sides apart: "go", "zig").
 */
export function overlayLines(
  pairs: SpectrumPair[],
  sides = { baseline: "baseline", candidate: "candidate" },
): SpectrumLine[] {
  return pairs.flatMap((pair, seriesIndex) => {
    const name = formatLabels(pair.labels);
    return [
      {
        key: `b${String(pair.baseline.series_id)}`,
        name: `${name} (${sides.baseline})`,
        seriesIndex,
        dashed: true,
        points: pair.baseline.corrected,
      },
      {
        key: `c${String(pair.candidate.series_id)}`,
        name: `${name} (${sides.candidate})`,
        seriesIndex,
        dashed: false,
        points: pair.candidate.corrected,
      },
    ];
  });
}
