import { describe, expect, it } from "vitest";

import type { MetricDelta, SeriesDelta } from "../api/types";
import {
  changeTone,
  compareGroups,
  compareHref,
  comparedRuns,
  confirmationProfilesHref,
  countVerdicts,
  filterSeries,
  orderByChange,
  regressions,
  parseRunId,
  oldestFirst,
  profilesHref,
  sideNames,
  splitUnchanged,
  togglePick,
  trialsOf,
  verdictHeadline,
} from "./compare";

function metric(overrides: Partial<MetricDelta>): MetricDelta {
  return {
    metric: "p99",
    label: "P99",
    unit: "ns",
    direction: "lower",
    baseline: 500_000,
    candidate: 650_000,
    delta: 150_000,
    delta_pct: 30,
    verdict: "regressed",
    confidence: "high",
    p_value: 0.008,
    method: "mann-whitney",
    evidence: "Mann-Whitney U p=0.008 over 5 vs 5 trials",
    baseline_trials: 5,
    candidate_trials: 5,
    reliable: true,
    ...overrides,
  };
}

const series: SeriesDelta[] = [
  {
    labels: { client: "rust" },
    baseline_series_id: 1,
    candidate_series_id: 2,
    baseline_labels: { client: "rust" },
    candidate_labels: { client: "rust" },
    metrics: [
      metric({}),
      metric({
        metric: "throughput",
        label: "throughput",
        unit: "req/s",
        direction: "higher",
        baseline: 115_554,
        candidate: 120_100,
        delta: 4_546,
        delta_pct: 3.93,
        verdict: "improved",
      }),
      metric({
        metric: "p9999",
        label: "P99.99",
        baseline: 900_000,
        candidate: 880_000,
        delta: -20_000,
        delta_pct: -2.2,
        verdict: "inconclusive",
        reliable: false,
      }),
    ],
  },
];

describe("changeTone", () => {
  it("follows the metric's direction", () => {
    expect(changeTone(150_000, "lower")).toBe("bad");
    expect(changeTone(-1, "lower")).toBe("good");
    expect(changeTone(4_546, "higher")).toBe("good");
    expect(changeTone(-4_546, "higher")).toBe("bad");
    expect(changeTone(0, "higher")).toBe("neutral");
    expect(changeTone(10, "none")).toBe("unknown");
  });
});

describe("compareGroups", () => {
  it("formats each metric in its own unit, in the seed reports' columns", () => {
    const [group] = compareGroups(series);
    expect(group!.name).toBe("client=rust");
    expect(group!.key).toBe("1-2");
    expect(group!.rows[0]).toEqual({
      metric: "p99",
      label: "P99",
      unit: "ns",
      baseline: "500 µs",
      candidate: "650 µs",
      delta: "+150 µs",
      deltaPct: "+30%",
      change: "bad",
      verdict: "regressed",
      evidence: "Mann-Whitney U p=0.008 over 5 vs 5 trials",
      reliable: true,
      baselineOf: "median of 5 trials",
      candidateOf: "median of 5 trials",
    });
    expect(group!.rows[1]).toMatchObject({
      baseline: "115.6k req/s",
      candidate: "120.1k req/s",
      delta: "+4.5k req/s",
      deltaPct: "+3.9%",
      change: "good",
    });
    // Inconclusive: a lower p99.99 is not painted as good news.
    expect(group!.rows[2]).toMatchObject({ delta: "−20 µs", change: "neutral", reliable: false });
  });

  it("names a metric its suite left unlabelled by the vocabulary's label", () => {
    const bare = {
      ...series[0]!,
      metrics: [metric({ metric: "success_rate", label: "success_rate" })],
    };
    expect(compareGroups([bare])[0]!.rows[0]!.label).toBe("success rate");
  });
});

describe("verdict counts", () => {
  it("counts and words them", () => {
    const counts = countVerdicts(series);
    expect(counts).toEqual({ regressed: 1, improved: 1, unchanged: 0, inconclusive: 1 });
    expect(verdictHeadline(counts)).toBe("1 regressed, 1 improved, 1 inconclusive");
    expect(verdictHeadline(countVerdicts([]))).toBe(
      "nothing compared: the runs have no series in common",
    );
    expect(verdictHeadline({ regressed: 0, improved: 0, unchanged: 3, inconclusive: 0 })).toBe(
      "no significant change",
    );
  });
});

describe("picking two runs", () => {
  const older = { id: 9, started_at: "2026-11-22T10:00:00Z" };
  const newer = { id: 4, started_at: "2026-11-23T10:00:00Z" };

  it("makes the older run the baseline", () => {
    expect(oldestFirst([newer, older]).map((run) => run.id)).toEqual([9, 4]);
  });

  it("keeps at most `max` picks, refusing one more rather than dropping one", () => {
    const third = { id: 5, started_at: "2026-11-24T10:00:00Z" };
    expect(togglePick([], older)).toEqual([older]);
    expect(togglePick([older, newer], third)).toEqual([older, newer]);
    expect(togglePick([older, newer], older)).toEqual([newer]);
  });

  it("links to a shareable compare page", () => {
    expect(compareHref(9, 4)).toBe("/compare?baseline=9&candidate=4");
    const href = compareHref(7, 7, { server: "go" }, { server: "zig" });
    const query = new URLSearchParams(href.split("?")[1]);
    expect(JSON.parse(query.get("baseline_labels")!)).toEqual({ server: "go" });
    expect(JSON.parse(query.get("candidate_labels")!)).toEqual({ server: "zig" });
  });

  it("links to the CPU profiles with the comparison's selectors, and a confirmation's", () => {
    expect(profilesHref({ baseline: 3, candidate: 4 })).toBe(
      "/compare/profiles?baseline=3&candidate=4",
    );
    const href = profilesHref({
      baseline: 7,
      candidate: 7,
      baseline_labels: '{"server":"go"}',
      candidate_labels: '{"server":"zig"}',
      program: "server",
    });
    const query = new URLSearchParams(href.split("?")[1]);
    expect(JSON.parse(query.get("baseline_labels")!)).toEqual({ server: "go" });
    expect(JSON.parse(query.get("candidate_labels")!)).toEqual({ server: "zig" });
    expect(query.get("program")).toBe("server");
    // What the alert messages link to (backend/latlab/alerts/lifecycle.py, profiles_url).
    expect(confirmationProfilesHref(12)).toBe(
      "/compare/profiles?baseline=12&candidate=12" +
        "&baseline_labels=%7B%22variant%22%3A%22baseline%22%7D" +
        "&candidate_labels=%7B%22variant%22%3A%22candidate%22%7D",
    );
  });

  it("reads a run id from the address", () => {
    expect(parseRunId("12")).toBe(12);
    expect(parseRunId(null)).toBeNull();
    expect(parseRunId("")).toBeNull();
    expect(parseRunId("0")).toBeNull();
    expect(parseRunId("1.5")).toBeNull();
    expect(parseRunId("x")).toBeNull();
  });
});

describe("compare labels", () => {
  it("names the sides by the labels that tell them apart", () => {
    expect(sideNames({ server: "go", load: "hdr" }, { server: "zig", load: "hdr" })).toEqual({
      baseline: "go",
      candidate: "zig",
    });
    expect(sideNames({}, {})).toEqual({ baseline: "baseline", candidate: "candidate" });
  });

  it("names the runs compared, and their series when only some are", () => {
    const runs = { baseline: { id: 3 }, candidate: { id: 5 } };
    expect(comparedRuns({ ...runs, baseline_labels: {}, candidate_labels: {} })).toBe(
      "Run #5 against #3",
    );
    const sides = { baseline_labels: { server: "go" }, candidate_labels: { server: "zig" } };
    expect(comparedRuns({ ...runs, ...sides })).toBe("Run #5 [server=zig] against #3 [server=go]");
  });

  it("says what a value is", () => {
    expect(trialsOf(5)).toBe("median of 5 trials");
    expect(trialsOf(1)).toBe("1 trial");
  });

  it("folds unchanged rows", () => {
    const [first] = series;
    const rows = compareGroups([
      { ...first!, metrics: [metric({}), metric({ metric: "p50", verdict: "unchanged" })] },
    ]);
    const { shown, unchanged } = splitUnchanged(rows[0]!.rows);
    expect(shown.map((row) => row.metric)).toEqual(["p99"]);
    expect(unchanged.map((row) => row.metric)).toEqual(["p50"]);
  });
});

describe("a comparison of many series", () => {
  function one(client: string, ...metrics: Partial<MetricDelta>[]): SeriesDelta {
    return {
      labels: { client },
      baseline_series_id: 1,
      candidate_series_id: 2,
      baseline_labels: { client },
      candidate_labels: { client },
      metrics: metrics.map(metric),
    };
  }
  const many = [
    one("quiet", { verdict: "inconclusive", delta_pct: 60 }),
    one("small-regression", { verdict: "regressed", delta_pct: 5 }),
    one("improved", { verdict: "improved", delta_pct: -50, delta: -1 }),
    one("big-regression", { verdict: "unchanged", delta_pct: 1 }, { verdict: "regressed", delta_pct: 40.9 }),
    one("same", { verdict: "unchanged", delta_pct: 0.5 }),
  ];
  const names = (items: SeriesDelta[]) => items.map((item) => String(item.labels.client));

  it("puts regressions first, the largest first, then improvements, then the rest by size", () => {
    expect(names(orderByChange(many))).toEqual([
      "big-regression",
      "small-regression",
      "improved",
      "quiet",
      "same",
    ]);
  });

  it("filters to changed, failing or searched series", () => {
    const none = { search: "", changedOnly: false, failingOnly: false };
    expect(filterSeries(many, none)).toHaveLength(5);
    expect(names(filterSeries(many, { ...none, changedOnly: true }))).toEqual([
      "small-regression",
      "improved",
      "big-regression",
    ]);
    expect(names(filterSeries(many, { ...none, failingOnly: true }))).toEqual([
      "small-regression",
      "big-regression",
    ]);
    expect(names(filterSeries(many, { ...none, search: "  CLIENT=big  regr " }))).toEqual([
      "big-regression",
    ]);
    expect(filterSeries(many, { ...none, search: "nothing-like-it" })).toEqual([]);
  });

  it("names each regressed series by its largest regressed metric, the largest first", () => {
    expect(regressions(many)).toEqual([
      "client=big-regression P99 +40.9%",
      "client=small-regression P99 +5%",
    ]);
  });
});
