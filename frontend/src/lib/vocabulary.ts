/**
 * The metric vocabulary, as the API serves it (`GET /api/v1/vocabulary`): a latency summary's
 * keys in the order they are shown, the generic metrics' labels, units and directions, the time
 * units and the tail rule. It is set once the app has it (the unit tests set it from the
 * OpenAPI example). Every view takes its latency keys from here, each by one rule below.
 */

import type { MetricInfo, Summary, VocabularyRead } from "../api/types";
import { configureTimeUnits } from "./units";

/** Until the API has answered nothing is known: no keys, no metrics, nanoseconds only. */
let vocabulary: VocabularyRead = {
  metrics: {},
  time_units: { ns: 1 },
  latency_keys: [],
  min_tail_samples: 0,
};

export function configureVocabulary(served: VocabularyRead): void {
  vocabulary = served;
  configureTimeUnits(served.time_units);
}

/** A latency summary's keys, in the order they are shown: p50 … p9999, min, max, mean, stddev. */
export function latencyKeys(): readonly string[] {
  return vocabulary.latency_keys;
}

/** A series summary's columns: every latency key but min (the keys the API compares, too). */
export function summaryKeys(): string[] {
  return latencyKeys().filter((key) => key !== "min");
}

/** What a load-latency curve draws of latency: the median and P99 (the tail the gate judges). */
export function curveKeys(): string[] {
  return latencyKeys().filter((key) => key === "p50" || key === "p99");
}

/** A trial's row, kept narrow: the curves' latencies, then the far tail (P99.9) and max. */
export function trialKeys(): string[] {
  const curve = curveKeys();
  return latencyKeys().filter((key) => curve.includes(key) || key === "p999" || key === "max");
}

/** A summary's value by latency key (undefined for a key it lacks). */
export function latencyValue(summary: Summary, key: string): number | undefined {
  return (summary as unknown as Record<string, number | undefined>)[key];
}

/** Samples a tail percentile needs beyond it to be trusted. */
export function minTailSamples(): number {
  return vocabulary.min_tail_samples;
}

/**
 * A metric's label, unit and direction: the run's own (its `metric_info`), else the
 * vocabulary's, else its bare name with no unit and no direction (a metric nobody declared).
 */
export function describeMetric(name: string, known?: MetricInfo): MetricInfo {
  const generic = vocabulary.metrics[name];
  if (known === undefined) return generic ?? { name, label: name, unit: "", direction: "none" };
  return { ...known, label: metricLabel(name, known) };
}

/**
 * What to call a metric. A suite that declares a generic metric without a label gets its bare
 * name as one (zig-http's success_rate), so the vocabulary's label comes before such a name.
 */
export function metricLabel(name: string, known?: Pick<MetricInfo, "label">): string {
  if (known !== undefined && known.label !== name) return known.label;
  return vocabulary.metrics[name]?.label ?? name;
}

/**
 * Column headers for metrics shown side by side: each metric's label, and where two share one
 * (each program's "CPU time") the metric's own name after it, so no two columns read alike.
 */
export function metricHeaders(
  names: string[],
  info: Partial<Record<string, Pick<MetricInfo, "label">>>,
): Record<string, string> {
  const labels = names.map((name) => metricLabel(name, info[name]));
  return Object.fromEntries(
    names.map((name, index) => {
      const label = labels[index]!;
      const shared = labels.filter((other) => other === label).length > 1;
      return [name, shared ? `${label} (${name})` : label];
    }),
  );
}
