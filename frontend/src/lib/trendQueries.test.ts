import { describe, expect, it } from "vitest";

import type { TrendParamsSet } from "../api/types";
import { slaRule } from "../test/fixtures";
import {
  describeRule,
  formatParams,
  labelsParam,
  matchingThresholds,
  mergeParamsSets,
  trendHref,
  paramsParam,
  trendChoices,
  thresholdInUnit,
} from "./trends";

describe("thresholds", () => {
  const target = {
    suite: "http-order",
    scenario: "medium",
    metric: "p99",
    labels: { client: "rust" },
  };

  it("converts a rule's threshold into the metric's unit", () => {
    expect(thresholdInUnit({ threshold: 2, unit: "ms" }, "ns")).toBe(2_000_000);
    expect(thresholdInUnit({ threshold: 350, unit: "µs" }, "ns")).toBe(350_000);
    expect(thresholdInUnit({ threshold: 99, unit: "%" }, "ratio")).toBeCloseTo(0.99, 12);
    expect(thresholdInUnit({ threshold: 10_000, unit: "req/s" }, "req/s")).toBe(10_000);
  });

  it("keeps the enabled static rules of this suite, scenario, metric and series", () => {
    const rules = [
      slaRule({ id: 1 }),
      slaRule({
        id: 2,
        scenario: "medium",
        series_selector: { client: "rust" },
        threshold: 1,
        severity: "critical",
      }),
      slaRule({ id: 3, scenario: "large" }),
      slaRule({ id: 4, series_selector: { client: "go" } }),
      slaRule({ id: 5, metric: "p50" }),
      slaRule({ id: 6, kind: "relative", unit: "%", threshold: 20 }),
      slaRule({ id: 7, enabled: false }),
      slaRule({ id: 8, suite: "zmq" }),
    ];
    expect(matchingThresholds(rules, target, "ns")).toEqual([
      { ruleId: 1, name: "P99 over 2 ms", value: 2_000_000, severity: "warning" },
      { ruleId: 2, name: "P99 over 2 ms", value: 1_000_000, severity: "critical" },
    ]);
  });

  it("describes a rule in one line", () => {
    expect(describeRule(slaRule({ op: ">" }))).toBe("breach if p99 > 2 ms");
    expect(
      describeRule(
        slaRule({ metric: "throughput", op: ">", threshold: 20, unit: "%", kind: "relative" }),
      ),
    ).toBe("breach if throughput is worse than the baseline by > 20%");
  });
});

describe("labelsParam", () => {
  it("sorts the keys", () => {
    expect(labelsParam({ symbol: "EURUSD.s", pattern: "req-rep" })).toBe(
      '{"pattern":"req-rep","symbol":"EURUSD.s"}',
    );
    expect(labelsParam({})).toBe("{}");
  });
});

describe("trendHref", () => {
  it("opens a trend on a metric of some series around a run", () => {
    const href = trendHref({
      suite: "http-order",
      scenario: "medium",
      metric: "p99",
      series: [{ pool: "8", client: "go" }],
      runId: 7,
    });
    const url = new URL(href, "http://lab");
    expect(url.pathname).toBe("/trends");
    expect([...url.searchParams]).toEqual([
      ["suite", "http-order"],
      ["scenario", "medium"],
      ["metric", "p99"],
      ["series", '{"client":"go","pool":"8"}'],
      ["run", "7"],
    ]);
    expect(trendHref({ suite: "echo", scenario: "default" })).toBe(
      "/trends?suite=echo&scenario=default",
    );
  });
});

describe("params", () => {
  it("names a params set, keys sorted", () => {
    expect(formatParams({ orders: 1000, connections: 50, load: "closed" })).toBe(
      "connections=50, load=closed, orders=1000",
    );
    expect(formatParams({})).toBe("(none)");
    expect(paramsParam({ orders: 1000, connections: 50 })).toBe(
      '{"connections":50,"orders":1000}',
    );
  });

  it("offers each params set of several series once, the most recent first", () => {
    const set = (
      params: Record<string, unknown>,
      runs: number,
      last: number,
      drawn = false,
    ): TrendParamsSet => ({
      params,
      runs,
      last_run_id: last,
      last_started_at: `2026-11-${String(last).padStart(2, "0")}T10:00:00Z`,
      drawn,
    });
    expect(
      mergeParamsSets([
        [set({ connections: 200 }, 2, 19, true), set({ connections: 50 }, 17, 17)],
        [set({ connections: 50 }, 16, 16), set({ connections: 8 }, 1, 3)],
      ]),
    ).toEqual([
      set({ connections: 200 }, 2, 19, true),
      set({ connections: 50 }, 17, 17),
      set({ connections: 8 }, 1, 3),
    ]);
  });
});

describe("trendChoices", () => {
  it("keys the API's series by their labels, failing ones marked", () => {
    expect(
      trendChoices([
        { labels: { client: "go", load: "hdr" }, failing: true },
        { labels: { client: "rust" }, failing: false },
      ]),
    ).toEqual([
      { key: '{"client":"go","load":"hdr"}', labels: { client: "go", load: "hdr" }, failing: true },
      { key: '{"client":"rust"}', labels: { client: "rust" }, failing: false },
    ]);
  });
});
