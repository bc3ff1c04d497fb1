import { describe, expect, it } from "vitest";

import type { RunSummary } from "../api/types";
import { hostCounts, latestPerSuite, verdictLabel } from "./overview";
import { canWrite, isAdmin } from "./roles";

function run(id: number, suite: string, verdict: RunSummary["verdict"] = null): RunSummary {
  return {
    id,
    project: "default",
    suite,
    scenario: "default",
    host_name: "lab-07",
    source: { kind: "ci", commit: null, branch: "main", build_url: null, pull_request: null },
    started_at: "2026-11-22T10:00:00Z",
    finished_at: null,
    created_at: "2026-11-22T10:00:00Z",
    series_count: 1,
    trial_count: 1,
    verdict,
    baseline_run_id: null,
    confirmation: null,
    confirms_run_id: null,
    intervals_retired_at: null,
    histograms_retired_at: null,
  };
}

describe("overview", () => {
  it("keeps the newest run of each suite", () => {
    const runs = [
      run(9, "zmq", "fail"),
      run(8, "echo"),
      run(7, "zmq", "pass"),
      run(6, "actor-iot"),
    ];
    expect(latestPerSuite(runs).map((r) => r.id)).toEqual([6, 8, 9]);
  });

  it("counts hosts up and down", () => {
    expect(hostCounts([{ online: true }, { online: false }, { online: true }])).toEqual({
      online: 2,
      offline: 1,
    });
  });

  it("words verdicts", () => {
    expect(verdictLabel("fail")).toEqual({ text: "fail", tone: "bad" });
    expect(verdictLabel("no-baseline").text).toBe("no baseline");
    expect(verdictLabel("inconclusive")).toEqual({ text: "inconclusive", tone: "unknown" });
    expect(verdictLabel(null).text).toBe("not judged");
  });

  it("lets members and admins write, admins alone manage users", () => {
    expect(canWrite("viewer")).toBe(false);
    expect(canWrite("member")).toBe(true);
    expect(isAdmin("member")).toBe(false);
    expect(isAdmin("admin")).toBe(true);
  });
});
