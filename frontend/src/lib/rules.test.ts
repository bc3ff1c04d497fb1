import { describe, expect, it } from "vitest";

import { SLA_RULE } from "../test/fixtures";
import { EMPTY_RULE, checkRule, parseSelector, ruleToForm } from "./rules";

describe("parseSelector", () => {
  it("reads label=value pairs", () => {
    expect(parseSelector("client=rust, pattern = req-rep")).toEqual({
      selector: { client: "rust", pattern: "req-rep" },
    });
    expect(parseSelector(" ")).toEqual({ selector: {} });
    expect(parseSelector("client")).toEqual({ error: '"client" is not label=value' });
  });
});

describe("checkRule", () => {
  it("builds the API's rule from the form", () => {
    const form = {
      ...EMPTY_RULE,
      name: "P99 over 2 ms",
      suite: "http-order",
      threshold: "2",
      selector: "client=rust",
      channelIds: [3],
    };
    expect(checkRule(form)).toEqual({
      rule: { ...SLA_RULE, series_selector: { client: "rust" }, channel_ids: [3] },
    });
  });

  it("names each field's problem", () => {
    const result = checkRule({
      ...EMPTY_RULE,
      suite: "HTTP Order",
      metric: "p 99",
      threshold: "fast",
      kind: "relative",
      unit: "ms",
    });
    expect(result).toEqual({
      errors: {
        name: "a name of 1 to 200 characters",
        suite: "a suite id, e.g. http-order",
        metric: "a metric name, e.g. p99 or throughput",
        threshold: "a number",
        unit: "a relative rule is in percent (%)",
      },
    });
  });

  it("round-trips a template", () => {
    const template = {
      name: "Throughput drop over 20 %",
      suite: "actor-iot",
      metric: "throughput",
      op: ">" as const,
      threshold: 20,
      unit: "%",
      kind: "relative" as const,
      series_selector: {},
      severity: "warning" as const,
      enabled: true,
    };
    const form = ruleToForm(template);
    expect(form).toMatchObject({
      scenario: "",
      selector: "",
      threshold: "20",
      severity: "warning",
      kind: "relative",
    });
    expect(checkRule(form)).toMatchObject({ rule: { unit: "%", kind: "relative", threshold: 20 } });
  });
});
