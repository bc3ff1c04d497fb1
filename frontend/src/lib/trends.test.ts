import { describe, expect, it } from "vitest";

import type { SlaRuleRead, TrendPoint } from "../api/types";
import {
  changeMarkers,
  describeRule,
  labelsParam,
  matchingThresholds,
  mergeTrendRows,
  scenarioCatalogue,
  thresholdInUnit,
  trendRows,
} from "./trends";

const points: TrendPoint[] = [
  {
    run_id: 1,
    started_at: "2026-11-20T10:00:00Z",
    value: 500_000,
    commit: "aaaa111",
    branch: "main",
    host_name: "lab-07",
    runs: 1,
  },
  {
    run_id: 2,
    started_at: "2026-11-21T10:00:00Z",
    value: 510_000,
    commit: "bbbb222",
    branch: "main",
    host_name: "lab-07",
    runs: 1,
  },
  {
    run_id: 5,
    started_at: "2026-11-22T10:00:00Z",
    value: 650_000,
    commit: null,
    branch: null,
    host_name: null,
    runs: 1,
  },
];

function rule(overrides: Partial<SlaRuleRead>): SlaRuleRead {
  return {
    id: 1,
    name: "P99 over 2 ms",
    suite: "http-order",
    scenario: null,
    series_selector: {},
    metric: "p99",
    op: ">",
    threshold: 2,
    unit: "ms",
    severity: "warning",
    kind: "static",
    enabled: true,
    channel_ids: null,
    created_at: "2026-11-01T00:00:00Z",
    ...overrides,
  };
}

describe("trendRows", () => {
  it("puts each run on the time axis with what opens it", () => {
    const rows = trendRows(points);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toEqual({
      t: Date.UTC(2026, 10, 20, 10),
      value: 500_000,
      runId: 1,
      commit: "aaaa111",
      branch: "main",
      host: "lab-07",
    });
    expect(rows[2]!.runId).toBe(5);
  });
});

describe("changeMarkers", () => {
  it("marks the first run after the change with the size of the change", () => {
    const markers = changeMarkers(points, [
      {
        index: 2,
        run_id: 5,
        started_at: "2026-11-22T10:00:00Z",
        before: 505_000,
        after: 650_000,
        delta_pct: 28.7,
        p_value: 0.01,
      },
      {
        index: 9,
        run_id: 9,
        started_at: "2026-11-23T10:00:00Z",
        before: 1,
        after: 2,
        delta_pct: null,
        p_value: 0.01,
      },
    ]);
    expect(markers).toEqual([
      {
        t: Date.UTC(2026, 10, 22, 10),
        value: 650_000,
        runId: 5,
        before: 505_000,
        after: 650_000,
        label: "+28.7%",
      },
    ]);
  });
});

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
      rule({ id: 1 }),
      rule({
        id: 2,
        scenario: "medium",
        series_selector: { client: "rust" },
        threshold: 1,
        severity: "critical",
      }),
      rule({ id: 3, scenario: "large" }),
      rule({ id: 4, series_selector: { client: "go" } }),
      rule({ id: 5, metric: "p50" }),
      rule({ id: 6, kind: "relative", unit: "%", threshold: 20 }),
      rule({ id: 7, enabled: false }),
      rule({ id: 8, suite: "zmq" }),
    ];
    expect(matchingThresholds(rules, target, "ns")).toEqual([
      { ruleId: 1, name: "P99 over 2 ms", value: 2_000_000, severity: "warning" },
      { ruleId: 2, name: "P99 over 2 ms", value: 1_000_000, severity: "critical" },
    ]);
  });

  it("describes a rule in one line", () => {
    expect(describeRule(rule({ op: ">" }))).toBe("breach if p99 > 2 ms");
    expect(
      describeRule(
        rule({ metric: "throughput", op: ">", threshold: 20, unit: "%", kind: "relative" }),
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

describe("mergeTrendRows", () => {
  it("puts the series of one run on one row, oldest first", () => {
    const go: TrendPoint[] = [
      { ...points[1]!, value: 610_000 },
      { ...points[0]!, value: 600_000 },
    ];
    expect(
      mergeTrendRows([
        { key: "rust", points },
        { key: "go", points: go },
      ]),
    ).toEqual([
      { t: Date.UTC(2026, 10, 20, 10), runId: 1, values: { rust: 500_000, go: 600_000 } },
      { t: Date.UTC(2026, 10, 21, 10), runId: 2, values: { rust: 510_000, go: 610_000 } },
      { t: Date.UTC(2026, 10, 22, 10), runId: 5, values: { rust: 650_000 } },
    ]);
    expect(mergeTrendRows([])).toEqual([]);
  });
});

describe("scenarioCatalogue", () => {
  it("unites the series and metrics of recent runs", () => {
    const info = (name: string) => ({
      name,
      label: name.toUpperCase(),
      unit: "ns",
      direction: "lower",
    });
    const catalogue = scenarioCatalogue([
      {
        series: [{ labels: { client: "rust" } }],
        metric_info: { p99: info("p99"), count: info("count") },
      },
      {
        series: [{ labels: { client: "go" } }, { labels: { client: "rust" } }],
        metric_info: { p99: info("p99"), throughput: info("throughput") },
      },
    ]);
    expect(catalogue.series).toEqual([
      { key: '{"client":"rust"}', labels: { client: "rust" } },
      { key: '{"client":"go"}', labels: { client: "go" } },
    ]);
    expect(catalogue.metrics.map((m) => m.name)).toEqual(["p99", "throughput"]);
  });
});
