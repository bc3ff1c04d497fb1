import { describe, expect, it } from "vitest";

import openapi from "../../openapi.json";
import {
  bisectionHref,
  bisectionProblems,
  checkBisection,
  COMMIT_STATES,
  commitCellClass,
  commitTitle,
  countStates,
  culpritsOf,
  describeRange,
  EMPTY_FORM,
  formatChange,
  formatWholeShare,
  jobHref,
  MAX_MINUTES,
  parseLabels,
  parseParams,
  rangeOf,
  REPETITIONS,
  sharesSum,
  STATUS,
  STEP_KINDS,
  stepMinutes,
  stepOutcome,
  suiteDefaults,
} from "./bisections";

const schemas = openapi.components.schemas;
const GOOD = "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567";
const BAD = "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432";

describe("a bisection's vocabulary", () => {
  it("has a text and tone for every status the API gives", () => {
    const statuses = schemas.BisectionRead.properties.status.enum;
    expect(Object.keys(STATUS).sort()).toEqual([...statuses].sort());
    expect(STATUS["not-reproduced"].text).toBe("not reproduced");
    expect(STATUS.running.tone).toBe("active");
  });

  it("colours every state a commit of the range can be in, and names it in the legend", () => {
    const states = schemas.CommitState.properties.state.enum;
    expect(Object.keys(COMMIT_STATES).sort()).toEqual([...states].sort());
    for (const state of states) {
      expect(commitCellClass(state as keyof typeof COMMIT_STATES)).toBe(
        `bisect-cell bisect-cell-${state}`,
      );
    }
  });

  it("names every kind of step", () => {
    expect(Object.keys(STEP_KINDS).sort()).toEqual([...schemas.Step.properties.kind.enum].sort());
  });

  it("reads every outcome a step can have", () => {
    const verdicts = schemas.VerdictReason.properties.outcome.anyOf.flatMap((item) =>
      "enum" in item ? item.enum : [],
    );
    expect(schemas.Step.properties.outcome.description).toMatch(/unbuildable/);
    for (const outcome of [...verdicts, "unbuildable"]) {
      expect(stepOutcome(outcome, false).tone).not.toBe("active");
    }
    expect(stepOutcome("regressed", true)).toEqual({ text: "regressed", tone: "bad" });
    expect(stepOutcome("improved", false)).toEqual({ text: "improved", tone: "good" });
    expect(stepOutcome("unchanged", false)).toEqual({ text: "unchanged", tone: "neutral" });
    expect(stepOutcome("untested", false)).toEqual({ text: "untested", tone: "unknown" });
    expect(stepOutcome("unbuildable", false)).toEqual({ text: "does not build", tone: "neutral" });
    expect(stepOutcome(null, true)).toEqual({ text: "measuring…", tone: "active" });
    expect(stepOutcome(null, false)).toEqual({ text: "not measured", tone: "neutral" });
    expect(stepOutcome("something-new", false)).toEqual({ text: "something-new", tone: "unknown" });
  });
});

describe("a bisection's commits and steps", () => {
  it("titles a strip cell with the commit, its author and its state", () => {
    expect(
      commitTitle({
        sha: GOOD,
        subject: "order: check stock",
        author: "Order Team",
        state: "culprit",
      }),
    ).toBe("0a1b2c3d4e order: check stock (Order Team): culprit");
    expect(commitTitle({ sha: BAD, subject: "wip", author: "", state: "unknown" })).toBe(
      "9f8e7d6c5b wip: not known",
    );
  });

  it("counts the commits in each state", () => {
    expect(countStates([{ state: "good" }, { state: "good" }, { state: "culprit" }])).toEqual({
      good: 2,
      unknown: 0,
      unbuildable: 0,
      culprit: 1,
      bad: 0,
    });
  });

  it("formats a change with its interval, and the culprit's share of the whole", () => {
    expect(formatChange(0.3, [0.281, 0.319])).toBe("+30% (+28.1% to +31.9%)");
    expect(formatChange(-0.046, null)).toBe("−4.6%");
    expect(formatChange(null, [0.1, 0.2])).toBe("—");
    expect(formatWholeShare(0.62)).toBe("62% of the whole change");
    expect(formatWholeShare(null)).toBeNull();
    expect(stepMinutes([{ minutes: 4.25 }, { minutes: null }, { minutes: 8.2 }])).toBe("12.4 min");
    expect(stepMinutes([])).toBe("0.0 min");
  });

  it("says the range and links its pages", () => {
    expect(describeRange({ repo: "orders", good: GOOD, bad: BAD })).toBe(
      "orders 0a1b2c3d4e..9f8e7d6c5b",
    );
    expect(bisectionHref(7)).toBe("/bisections/7");
    expect(jobHref(12)).toBe("/jobs?job=12");
  });

  it("reads the culprits or the range of a result", () => {
    const culprit = {
      sha: BAD,
      subject: "order: check stock",
      author: "Order Team",
      change: 0.3,
      interval: [0.281, 0.319],
      share: 0.62,
      run_id: 41,
    };
    const other = { ...culprit, sha: GOOD, subject: "order: log", change: 0.15, share: 0.31 };
    const result = { culprit, culprits: [other, culprit] };
    expect(culpritsOf(result)).toEqual([other, culprit]);
    expect(culpritsOf({ culprit })).toEqual([culprit]);
    const bare = {
      sha: BAD,
      subject: "",
      author: "",
      change: null,
      interval: null,
      share: null,
      run_id: null,
    };
    expect(culpritsOf({ culprit: { sha: BAD, interval: ["x"] } })).toEqual([bare]);
    expect(culpritsOf({ culprits: [{ sha: 3 }, "x", null, { sha: BAD }], culprit })).toEqual([
      bare,
    ]);
    expect(culpritsOf({ culprits: [], culprit })).toEqual([]);
    expect(culpritsOf({ culprit: { subject: "no sha" } })).toEqual([]);
    expect(culpritsOf({ range: [BAD] })).toEqual([]);
    expect(culpritsOf(null)).toEqual([]);
    expect(rangeOf({ range: [GOOD, BAD, 3] })).toEqual([GOOD, BAD]);
    expect(rangeOf(result)).toBeNull();
  });

  it("sums the culprits' shares, only when every one is known", () => {
    expect(sharesSum([{ share: 0.62 }, { share: 0.31 }])).toBeCloseTo(0.93);
    expect(sharesSum([{ share: 0.62 }, { share: null }])).toBeNull();
    expect(sharesSum([{ share: Number.NaN }])).toBeNull();
    expect(sharesSum([])).toBeNull();
  });
});

describe("the form that starts a bisection", () => {
  const typed = {
    ...EMPTY_FORM,
    repo: "orders",
    good: " v1.0 ",
    bad: "main",
    scenario: "steady",
    series: "client=go, pool = 8",
    params: '{"server": "repo"}',
  };

  it("starts from the API's defaults", () => {
    expect(EMPTY_FORM.metric).toBe(schemas.BisectionCreate.properties.metric.default);
    expect(REPETITIONS).toBe(schemas.BisectionCreate.properties.repetitions.default);
    expect(MAX_MINUTES).toBe(schemas.BisectionCreate.properties.max_minutes.anyOf[0]?.maximum);
  });

  it("proposes a suite's lightest scenario and params that measure the repository", () => {
    const suite = {
      scenarios: { steady: {}, small: {} },
      lightest_scenario: "small",
      params_schema: { properties: { server: { type: "string", enum: ["lab", "repo"] } } },
    } as never;
    expect(suiteDefaults(suite)).toEqual({ scenario: "small", params: '{"server": "repo"}' });
    expect(
      suiteDefaults({
        scenarios: { default: {} },
        lightest_scenario: null,
        params_schema: {},
      } as never),
    ).toEqual({ scenario: "default", params: "" });
    expect(suiteDefaults(undefined)).toEqual({
      scenario: schemas.BisectionCreate.properties.scenario.default,
      params: "",
    });
  });

  it("sends what was typed, trimmed", () => {
    expect(checkBisection(typed)).toEqual({
      body: {
        repo: "orders",
        good: "v1.0",
        bad: "main",
        suite: "http-order",
        scenario: "steady",
        metric: "p99",
        series: { client: "go", pool: "8" },
        params: { server: "repo" },
        host_tags: [],
        repetitions: 10,
      },
    });
    expect(checkBisection({ ...typed, maxMinutes: "90" })).toMatchObject({
      body: { max_minutes: 90 },
    });
  });

  it("says what is wrong, field by field", () => {
    expect(checkBisection({ ...EMPTY_FORM, metric: " " })).toEqual({
      errors: {
        repo: "required",
        good: "required",
        bad: "required",
        scenario: "required",
        metric: "required",
      },
    });
    const wrong = checkBisection({ ...typed, series: "client", params: "[1]", maxMinutes: "0" });
    expect(wrong).toEqual({
      errors: {
        series: '"client" is not key=value',
        params: 'a JSON object, e.g. {"server": "repo"}',
        maxMinutes: "whole minutes from 1 to 2,880",
      },
    });
  });

  it("reads series labels and params", () => {
    expect(parseLabels("")).toEqual({ labels: {} });
    expect(parseLabels("client=go,")).toEqual({ labels: { client: "go" } });
    expect(parseLabels("a=1, a=2")).toEqual({ error: "a is given twice" });
    expect(parseLabels("=go")).toHaveProperty("error");
    expect(parseLabels("url=http://x?a=b")).toEqual({ labels: { url: "http://x?a=b" } });
    expect(parseParams(" ")).toEqual({ params: {} });
    expect(parseParams("{")).toHaveProperty("error");
    expect(parseParams('{"work_us": 50}')).toEqual({ params: { work_us: 50 } });
  });

  it("puts the API's refusal on the fields it names", () => {
    const body = {
      detail: [
        { path: "$.good", message: "no commit v9 in orders" },
        { path: "$.params.server", message: "must be one of lab, repo" },
        { path: "$.max_minutes", message: "must be at most 2880" },
        { path: "$.host_tags", message: "unknown" },
        { path: "$", message: "another" },
      ],
    };
    expect(bisectionProblems(body)).toEqual({
      fields: {
        good: "no commit v9 in orders",
        params: "server: must be one of lab, repo",
        maxMinutes: "must be at most 2880",
      },
      other: ["another", "host_tags: unknown"],
    });
    expect(bisectionProblems({ detail: "no host offers http-order" })).toEqual({
      fields: {},
      other: ["no host offers http-order"],
    });
  });
});
