import { describe, expect, it } from "vitest";

import type { GateEvidence } from "../api/types";
import { blindSpot, failsAbove, smallestChangeAt } from "./gate";

// A window whose prediction spread on the log scale is sqrt(between + within / trials), and
// a test that reaches `REACH` of it: the smallest change it sees, as the gate computes it.
const BETWEEN = 0.0004;
const WITHIN = 0.0036;
const REACH = 3.2;

function smallest(trials: number, higher = false, floor = 0): number {
  const reach = REACH * Math.sqrt(BETWEEN + WITHIN / trials);
  return Math.max(floor, higher ? 1 - Math.exp(-reach) : Math.exp(reach) - 1);
}

function evidence(trials: number, higher = false, floor = 0): GateEvidence {
  return {
    series: { client: "rust" },
    metric: higher ? "throughput" : "p99",
    unit: higher ? "req/s" : "ns",
    method: "window",
    outcome: "unchanged",
    value: 500,
    trials,
    centre: 500,
    bound: higher ? 420 : 600,
    p_value: 0.4,
    level: 0.005,
    smallest_change: Object.fromEntries(
      [1, 3, 5].map((k) => [String(k), smallest(k, higher, floor)]),
    ),
    message: "…",
    window: {
      branch: "main",
      runs: 30,
      outliers: 0,
      spread: 0.03,
      first_run_id: 1,
      last_run_id: 30,
      first_commit: null,
      last_commit: null,
    },
  } as GateEvidence;
}

describe("smallestChangeAt", () => {
  it("reads the trials the gate reported", () => {
    expect(smallestChangeAt(evidence(3), 3)).toEqual({
      value: smallest(3),
      trials: 3,
      estimated: false,
    });
  });

  it("follows the others from them, either direction", () => {
    for (const higher of [false, true]) {
      for (const trials of [2, 4, 10, 50]) {
        const found = smallestChangeAt(evidence(trials, higher), trials)!;
        expect(found.estimated).toBe(true);
        expect(found.value).toBeCloseTo(smallest(trials, higher), 10);
      }
    }
  });

  it("keeps the gate's floor, the minimum effect", () => {
    // 5 % floors the 5 trials' value only: more trials stay at it.
    const floored = evidence(10, false, 0.12);
    expect(smallestChangeAt(floored, 10)!.value).toBeCloseTo(0.12, 10);
    expect(smallestChangeAt(floored, 4)!.value).toBeGreaterThanOrEqual(0.12);
    const some = evidence(20, false, smallest(5) + 0.01);
    expect(smallestChangeAt(some, 20)!.value).toBeCloseTo(smallest(5) + 0.01, 10);
  });

  it("says nothing without values", () => {
    expect(smallestChangeAt({ ...evidence(1), smallest_change: {} }, 1)).toBeNull();
  });
});

describe("blindSpot", () => {
  it("flags a metric that cannot show 10 % with the run's own trials", () => {
    expect(smallest(1)).toBeGreaterThan(0.1);
    expect(smallest(10)).toBeLessThan(0.1);
    expect(blindSpot(evidence(1))).toEqual({ value: smallest(1), trials: 1, estimated: false });
    expect(blindSpot(evidence(10))).toBeNull();
    expect(blindSpot(evidence(10), 0.05)?.trials).toBe(10);
  });

  it("knows which side a metric fails on", () => {
    expect(failsAbove(evidence(1))).toBe(true);
    expect(failsAbove(evidence(1, true))).toBe(false);
  });
});
