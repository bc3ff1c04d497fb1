import { afterEach, describe, expect, it } from "vitest";

import openapi from "../../openapi.json";
import type { MetricInfo, Summary, VocabularyRead } from "../api/types";
import { formatValue } from "./units";
import {
  configureVocabulary,
  curveKeys,
  describeMetric,
  latencyKeys,
  latencyValue,
  metricHeaders,
  metricLabel,
  minTailSamples,
  summaryKeys,
  trialKeys,
} from "./vocabulary";

// The test setup configured the API's example; a test that serves another puts it back.
const SERVED = openapi.components.schemas.VocabularyRead.examples[0] as VocabularyRead;

afterEach(() => configureVocabulary(SERVED));

function info(name: string, label: string, unit = "ratio"): MetricInfo {
  return { name, label, unit, direction: "higher" };
}

describe("the latency keys", () => {
  it("are the API's, in its order", () => {
    expect(latencyKeys()).toEqual(SERVED.latency_keys);
    expect(latencyKeys()).toEqual([
      "p50", "p90", "p95", "p99", "p999", "p9999", "min", "max", "mean", "stddev",
    ]);
  });

  it("give each view its subset by one rule", () => {
    expect(summaryKeys()).toEqual([
      "p50", "p90", "p95", "p99", "p999", "p9999", "max", "mean", "stddev",
    ]);
    expect(curveKeys()).toEqual(["p50", "p99"]);
    expect(trialKeys()).toEqual(["p50", "p99", "p999", "max"]);
  });

  it("follow what the API serves, order included", () => {
    configureVocabulary({ ...SERVED, latency_keys: ["max", "p99", "min", "p50"] });
    expect(summaryKeys()).toEqual(["max", "p99", "p50"]);
    expect(curveKeys()).toEqual(["p99", "p50"]);
    expect(trialKeys()).toEqual(["max", "p99", "p50"]);
  });

  it("read a summary by key", () => {
    const summary = { count: 10, p99: 500, max: 900 } as unknown as Summary;
    expect(latencyValue(summary, "p99")).toBe(500);
    expect(latencyValue(summary, "p9999")).toBeUndefined();
  });
});

describe("metricLabel", () => {
  it("takes the run's own label", () => {
    expect(metricLabel("throughput", info("throughput", "requests answered"))).toBe(
      "requests answered",
    );
  });

  it("prefers the vocabulary's label to a bare name (a suite declared no label)", () => {
    expect(metricLabel("success_rate", info("success_rate", "success_rate"))).toBe("success rate");
    expect(metricLabel("count", info("count", "count", "count"))).toBe("samples");
    expect(metricLabel("p999")).toBe("P99.9");
  });

  it("falls back to the name only for a metric nobody labelled", () => {
    expect(metricLabel("target_rate", info("target_rate", "target_rate", "req/s"))).toBe(
      "target_rate",
    );
    expect(metricLabel("frobs")).toBe("frobs");
  });
});

describe("describeMetric", () => {
  it("is the run's info, labelled as metricLabel says", () => {
    expect(describeMetric("success_rate", info("success_rate", "success_rate"))).toEqual(
      info("success_rate", "success rate"),
    );
  });

  it("is the vocabulary's for a metric the run does not describe", () => {
    expect(describeMetric("p99")).toEqual({
      name: "p99",
      label: "P99",
      unit: "ns",
      direction: "lower",
    });
  });

  it("has no unit and no direction for an unknown metric", () => {
    expect(describeMetric("frobs")).toEqual({
      name: "frobs",
      label: "frobs",
      unit: "",
      direction: "none",
    });
  });
});

describe("configureVocabulary", () => {
  it("sets the tail rule and the time units too", () => {
    expect(minTailSamples()).toBe(SERVED.min_tail_samples);
    expect(formatValue(2000, "ms")).toBe("2 s");
    configureVocabulary({ ...SERVED, time_units: {}, min_tail_samples: 20 });
    expect(minTailSamples()).toBe(20);
    // A unit the vocabulary does not call a time is shown as it is.
    expect(formatValue(2000, "ms")).toBe("2,000 ms");
  });
});

describe("metricHeaders", () => {
  it("tells apart metrics that share a label by their names", () => {
    const cpu = (name: string) => ({ name, label: "CPU time", unit: "s", direction: "lower" as const });
    const headers = metricHeaders(["cpu_s.server", "cpu_s.client", "throughput"], {
      "cpu_s.server": cpu("cpu_s.server"),
      "cpu_s.client": cpu("cpu_s.client"),
    });
    expect(headers).toEqual({
      "cpu_s.server": "CPU time (cpu_s.server)",
      "cpu_s.client": "CPU time (cpu_s.client)",
      throughput: metricLabel("throughput"),
    });
    expect(new Set(Object.values(headers)).size).toBe(3);
  });
});
