import { describe, expect, it } from "vitest";

import type { CompareRead, MetricDelta } from "../api/types";
import { multiCompareHref, multiRows, parseRunIds } from "./multiCompare";

function p99(baseline: number, candidate: number, verdict: MetricDelta["verdict"]): MetricDelta {
  return {
    metric: "p99",
    label: "P99",
    unit: "ns",
    direction: "lower",
    baseline,
    candidate,
    delta: candidate - baseline,
    delta_pct: ((candidate - baseline) / baseline) * 100,
    verdict,
    confidence: "high",
    p_value: 0.01,
    method: "mann-whitney",
    evidence: "",
    baseline_trials: 5,
    candidate_trials: 5,
    reliable: true,
  };
}

function compare(candidate: number, metrics: MetricDelta[], labels = { client: "rust" }) {
  return {
    baseline: { id: 1 },
    candidate: { id: candidate },
    series: [{ labels, metrics }],
  } as unknown as CompareRead;
}

describe("multi compare", () => {
  it("reads 2 to 6 distinct run ids", () => {
    expect(parseRunIds("3,5,9")).toEqual([3, 5, 9]);
    expect(parseRunIds("3,3")).toBeNull();
    expect(parseRunIds("1,2,3,4,5,6,7")).toBeNull();
    expect(parseRunIds("1,x")).toBeNull();
    expect(multiCompareHref([3, 5, 9])).toBe("/compare?runs=3,5,9");
  });

  it("puts each run's value in its column, with its verdict against the first", () => {
    const rows = multiRows([
      compare(2, [p99(500_000, 650_000, "regressed")]),
      compare(3, [p99(500_000, 400_000, "improved")]),
      compare(4, [], { client: "go" }),
    ]);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row!.series).toBe("client=rust");
    expect(row!.cells[0]).toEqual({ value: "500 µs" });
    expect(row!.cells[1]).toEqual({ value: "650 µs", verdict: "regressed", deltaPct: "+30%" });
    expect(row!.cells[2]).toMatchObject({ value: "400 µs", verdict: "improved" });
    expect(row!.cells[3]).toBeUndefined();
  });
});
