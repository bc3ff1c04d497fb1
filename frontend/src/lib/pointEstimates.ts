/**
 * A harness that reports one number per trial (go test -bench: ns/op, a mean over its
 * iterations) gives no distribution: a percentile spectrum of three values says nothing. Such
 * series are drawn as the mean of their trials with the trials' range.
 */

import type { SeriesRead } from "../api/types";
import { formatLabels, stringLabels } from "./format";

/** Every trial is one value. */
export function isPointSeries(series: SeriesRead): boolean {
  return series.trials.length > 0 && series.trials.every((trial) => trial.summary.count === 1);
}

export interface PointEstimate {
  name: string;
  mean: number;
  /** Distances below and above the mean to the slowest and fastest trial, for an error bar. */
  range: [number, number];
  trials: number;
}

export function pointEstimates(series: SeriesRead[]): PointEstimate[] {
  return series.filter(isPointSeries).map((item) => {
    const values = item.trials.map((trial) => trial.summary.mean);
    const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
    return {
      name: formatLabels(stringLabels(item.labels)),
      mean,
      range: [mean - Math.min(...values), Math.max(...values) - mean],
      trials: values.length,
    };
  });
}
