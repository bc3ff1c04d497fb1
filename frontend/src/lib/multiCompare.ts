/**
 * Several runs side by side (/compare?runs=3,5,9): the first is the baseline and every other
 * run is compared with it by the API's own comparison, so each column's verdicts are the ones
 * the two-run page shows. Rows are a series' metric; cells are each run's value (the median
 * of its trials) with its verdict and change against the first.
 */

import type { CompareRead, Spectrum, Verdict } from "../api/types";
import { formatLabels, stringLabels } from "./format";
import type { SpectrumLine } from "./spectrum";
import { formatDeltaPct, formatValue } from "./units";
import { metricLabel } from "./vocabulary";

export const MAX_RUNS = 6;

/** "3,5,9" -> [3, 5, 9]: 2 to 6 distinct run ids, else null. */
export function parseRunIds(text: string | null): number[] | null {
  if (!text) return null;
  const ids = text.split(",").map((part) => Number(part.trim()));
  if (ids.some((id) => !Number.isInteger(id) || id < 1)) return null;
  const distinct = [...new Set(ids)];
  return distinct.length >= 2 && distinct.length <= MAX_RUNS ? distinct : null;
}

export function multiCompareHref(runIds: number[]): string {
  return `/compare?runs=${runIds.join(",")}`;
}

export interface MultiCell {
  value: string;
  verdict?: Verdict;
  deltaPct?: string;
}

export interface MultiRow {
  key: string;
  series: string;
  metric: string;
  label: string;
  /** One per run, the baseline first; undefined where that run has no such series. */
  cells: (MultiCell | undefined)[];
}

/** The table of several runs from each run's comparison with the first (in run order). */
export function multiRows(comparisons: CompareRead[]): MultiRow[] {
  const rows = new Map<string, MultiRow>();
  comparisons.forEach((compare, index) => {
    for (const series of compare.series) {
      const name = formatLabels(stringLabels(series.labels));
      for (const metric of series.metrics) {
        const key = `${name}|${metric.metric}`;
        let row = rows.get(key);
        if (row === undefined) {
          row = {
            key,
            series: name,
            metric: metric.metric,
            label: metricLabel(metric.metric, metric),
            cells: Array<MultiCell | undefined>(comparisons.length + 1).fill(undefined),
          };
          rows.set(key, row);
        }
        row.cells[0] ??= { value: formatValue(metric.baseline, metric.unit) };
        row.cells[index + 1] = {
          value: formatValue(metric.candidate, metric.unit),
          verdict: metric.verdict,
          deltaPct: formatDeltaPct(metric.delta_pct),
        };
      }
    }
  });
  return [...rows.values()];
}

/** Series drawn on the overlaid spectra: each run adds a line per series. */
export const SPECTRUM_SERIES = 4;

/** A series whose spectrum the overlay draws, and the run it belongs to (0: the baseline). */
export interface SpectrumPick {
  runId: number;
  seriesId: number;
  labels: Record<string, string>;
  runIndex: number;
}

/** The first few series of every run, the baseline's first. */
export function spectrumPicks(comparisons: CompareRead[]): SpectrumPick[] {
  const first = comparisons[0];
  if (first === undefined) return [];
  const baseline = first.series.slice(0, SPECTRUM_SERIES).map((item) => ({
    runId: first.baseline.id,
    seriesId: item.baseline_series_id,
    labels: stringLabels(item.labels),
    runIndex: 0,
  }));
  const candidates = comparisons.flatMap((compare, index) =>
    compare.series.slice(0, SPECTRUM_SERIES).map((item) => ({
      runId: compare.candidate.id,
      seriesId: item.candidate_series_id,
      labels: stringLabels(item.labels),
      runIndex: index + 1,
    })),
  );
  return [...baseline, ...candidates];
}

/** The picks' lines on one chart, a colour per run, the baseline's dashed; a pick whose
 * spectrum is missing is left out. */
export function pickedLines(picks: SpectrumPick[], spectra: Spectrum[]): SpectrumLine[] {
  return picks.flatMap((pick) => {
    const spectrum = spectra.find((item) => item.series_id === pick.seriesId);
    return spectrum
      ? [
          {
            key: `${String(pick.runId)}-${String(pick.seriesId)}`,
            name: `#${String(pick.runId)} ${formatLabels(pick.labels)}`,
            seriesIndex: pick.runIndex,
            dashed: pick.runIndex === 0,
            points: spectrum.corrected,
          },
        ]
      : [];
  });
}
