import { describe, expect, it } from "vitest";

import { intervalKeys, intervalRows, trialsWithIntervals } from "./intervals";

describe("intervalRows", () => {
  it("sorts by time and keeps the numeric percentiles", () => {
    const rows = intervalRows([
      { t_s: 1, count: 1000, p50: 340_000, p99: 500_000, max: 750_000 },
      { t_s: 0, count: 900, p50: 350_000, p99: null, max: 800_000 },
      { t_s: "later", count: 5, p50: 1 },
    ]);
    expect(rows).toEqual([
      { t: 0, count: 900, values: { p50: 350_000, max: 800_000 } },
      { t: 1, count: 1000, values: { p50: 340_000, p99: 500_000, max: 750_000 } },
    ]);
    expect(intervalKeys(rows)).toEqual(["p50", "p99", "max"]);
  });

  it("keeps the latency keys an interval carries, in the vocabulary's order", () => {
    const rows = intervalRows([{ t_s: 0, count: 5, length_s: 1, hdr: "x", max: 9, p90: 5, p50: 2 }]);
    expect(rows[0]!.values).toEqual({ p50: 2, p90: 5, max: 9 });
    expect(intervalKeys(rows)).toEqual(["p50", "p90", "max"]);
  });

  it("is empty without intervals", () => {
    expect(intervalRows(null)).toEqual([]);
    expect(intervalKeys([])).toEqual([]);
  });

  it("finds the trials that have intervals", () => {
    const trials = [
      { index: 0, intervals: null },
      { index: 1, intervals: [] },
      { index: 2, intervals: [{ t_s: 0 }] },
    ];
    expect(trialsWithIntervals(trials).map((t) => t.index)).toEqual([2]);
  });
});
