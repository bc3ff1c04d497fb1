import { describe, expect, it } from "vitest";

import type { ExpectationJudged, ExperimentRunRead } from "../api/types";
import {
  experimentHref,
  formatJudged,
  formatJudgedInterval,
  formatPoint,
  outcomeCounts,
  pairJudgements,
  parseDocument,
} from "./experiments";

function judged(
  expectation: string,
  outcome: ExpectationJudged["outcome"],
  point: Record<string, number> | null = null,
): ExpectationJudged {
  return {
    expectation,
    point,
    outcome,
    value: 0.375,
    interval: [0.36, 0.39],
    decidable: 0.06,
    unit: null,
    reason: "",
  };
}

function run(id: number, judgements: ExpectationJudged[] | null): ExperimentRunRead {
  return {
    id,
    experiment: "tuning",
    version: 1,
    status: judgements ? "done" : "running",
    host_tags: [],
    jobs: {},
    judgements,
    figures: null,
    message: null,
    created_at: "2026-12-07T05:00:00Z",
    finished_at: null,
  };
}

describe("experiments", () => {
  it("links a run and another beside it", () => {
    expect(experimentHref("tuning")).toBe("/experiments/tuning");
    expect(experimentHref("tuning", 3, 5)).toBe("/experiments/tuning?run=3&against=5");
  });

  it("shows a ratio as a factor and a bound in its unit, with the interval", () => {
    expect(formatJudged(0.375, null)).toBe("x0.375");
    expect(formatJudged(null, null)).toBe("–");
    expect(formatJudgedInterval(judged("p50(a) <= p50(b)", "holds"))).toBe("x0.360 – x0.390");
    expect(formatPoint({ connections: 10 })).toBe("connections = 10");
    expect(formatPoint(null)).toBe("–");
  });

  it("counts a run's outcomes", () => {
    const counted = outcomeCounts(
      run(1, [judged("a", "holds"), judged("b", "holds"), judged("c", "not-decided")]),
    );
    expect(counted).toEqual({ holds: 2, "does-not-hold": 0, "not-decided": 1 });
    expect(outcomeCounts(run(2, null))).toEqual({ holds: 0, "does-not-hold": 0, "not-decided": 0 });
  });

  it("pairs two runs' judgements by expectation and point, marking those judged differently", () => {
    const first = run(1, [
      judged("a", "holds"),
      judged("x for c <= 10", "holds", { c: 10 }),
      judged("x for c <= 10", "holds", { c: 1 }),
    ]);
    const second = run(2, [
      judged("x for c <= 10", "does-not-hold", { c: 10 }),
      judged("a", "holds"),
      judged("new", "not-decided"),
    ]);
    const pairs = pairJudgements(first, second);
    expect(pairs.map((pair) => [pair.expectation, formatPoint(pair.point), pair.changed])).toEqual([
      ["a", "–", false],
      ["x for c <= 10", "c = 10", true],
      ["x for c <= 10", "c = 1", true],
      ["new", "–", true],
    ]);
    expect(pairs[2]?.second).toBeNull();
  });

  it("checks a typed document before it is sent", () => {
    expect(parseDocument("{").error).toMatch(/^Not JSON/);
    expect(parseDocument("[]").error).toBe("An experiment is a JSON object.");
    expect(parseDocument('{"name": "x"}').error).toBe("It needs title, jobs.");
    const parsed = parseDocument('{"name": "x", "title": "X", "jobs": {}}');
    expect(parsed.error).toBeNull();
    expect(parsed.document?.name).toBe("x");
  });
});
