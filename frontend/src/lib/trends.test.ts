import { describe, expect, it } from "vitest";

import type { GateEvidence, TrendPoint } from "../api/types";
import {
  changeMarkers,
  indexTicks,
  mergeTrendRows,
  rowLabels,
  smallestChangeText,
  trendRows,
  windowBand,
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
  it("marks the first run after the change, at its row, with the size of the change", () => {
    const rows = mergeTrendRows([{ key: "rust", points }]);
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
    ], rows);
    expect(markers).toEqual([
      {
        x: 2,
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
      {
        index: 0,
        t: Date.UTC(2026, 10, 20, 10),
        runId: 1,
        commit: "aaaa111",
        branch: "main",
        values: { rust: 500_000, go: 600_000 },
      },
      {
        index: 1,
        t: Date.UTC(2026, 10, 21, 10),
        runId: 2,
        commit: "bbbb222",
        branch: "main",
        values: { rust: 510_000, go: 610_000 },
      },
      {
        index: 2,
        t: Date.UTC(2026, 10, 22, 10),
        runId: 5,
        commit: null,
        branch: null,
        values: { rust: 650_000 },
      },
    ]);
    expect(mergeTrendRows([])).toEqual([]);
  });

  it("gives runs started in the same second a row each, in the order they came", () => {
    const second = "2026-11-22T10:00:00Z";
    const same: TrendPoint[] = [7, 8, 9].map((runId) => ({
      ...points[0]!,
      run_id: runId,
      started_at: second,
      commit: `c0ffee${String(runId)}`,
    }));
    const rows = mergeTrendRows([
      { key: "rust", points: same },
      { key: "go", points: [same[2]!, same[0]!] },
    ]);
    expect(rows.map((row) => [row.index, row.runId])).toEqual([
      [0, 7],
      [1, 8],
      [2, 9],
    ]);
    expect(rows[1]!.values).toEqual({ rust: 500_000 });
    expect(rowLabels(rows)).toEqual(["c0ffee7", "c0ffee8", "c0ffee9"]);
  });
});

describe("the x axis", () => {
  it("labels rows by commit, else run, else day", () => {
    expect(
      rowLabels([
        { t: 0, runId: 3, commit: "0123456789abcdef" },
        { t: 0, runId: 4, commit: null },
        { t: Date.UTC(2026, 10, 22), runId: null, commit: null },
      ]),
    ).toEqual(["0123456", "#4", "11-22"]);
  });

  it("shortens commits only as far as they stay apart", () => {
    const feed = (n: number, commit: string) => ({ t: 0, runId: n, commit });
    expect(
      rowLabels([
        feed(1, "feed0001aaaaaaaa"),
        feed(2, "feed0002aaaaaaaa"),
        feed(3, "feed0002aaaaaaaa"), // the same commit twice: one label
        feed(4, "abcdef0123456789"),
      ]),
    ).toEqual(["feed0001", "feed0002", "feed0002", "abcdef01"]);
  });

  it("ticks every row up to a dozen, then evenly with both ends", () => {
    expect(indexTicks(0, -1)).toEqual([]);
    expect(indexTicks(0, 2)).toEqual([0, 1, 2]);
    const ticks = indexTicks(0, 199);
    expect(ticks).toHaveLength(12);
    expect(ticks[0]).toBe(0);
    expect(ticks[11]).toBe(199);
  });

  it("ticks a zoomed range within it, its right edge labelled with its own row", () => {
    expect(indexTicks(40, 44)).toEqual([40, 41, 42, 43, 44]);
    const ticks = indexTicks(50, 149);
    expect(ticks).toHaveLength(12);
    expect(ticks[0]).toBe(50);
    expect(ticks[11]).toBe(149);
    expect(ticks.every((tick) => tick >= 50 && tick <= 149)).toBe(true);
  });
});

// `as`: the evidence's fields as the gate writes them, whichever the schema lists.
const evidence = {
  series: { client: "rust" },
  metric: "p99",
  unit: "ns",
  method: "window",
  outcome: "unchanged",
  value: 510_000,
  trials: 1,
  centre: 500_000,
  bound: 600_000,
  p_value: 0.3,
  level: 0.005,
  smallest_change: { "5": 0.061, "1": 0.12, "3": 0.075 },
  message: "…",
  window: {
    branch: "main",
    runs: 12,
    outliers: 0,
    spread: 0.04,
    first_run_id: 2,
    last_run_id: 4,
    first_commit: "bbbb222",
    last_commit: null,
  },
} as GateEvidence;

describe("windowBand", () => {
  it("spans the window's runs to the run judged, centre to bound", () => {
    const rows = mergeTrendRows([{ key: "rust", points }]);
    expect(windowBand(rows, { run_id: 5, source: "gate", evidence })).toEqual({
      x1: 1,
      x2: 2,
      centre: 500_000,
      bound: 600_000,
      runId: 5,
      source: "gate",
      evidence,
    });
    // The first run of the window is not drawn: from the first row.
    const older = { ...evidence, window: { ...evidence.window, first_run_id: 99 } };
    expect(windowBand(rows, { run_id: 5, source: "computed", evidence: older })?.x1).toBe(0);
    // The run judged is not drawn: no band.
    expect(windowBand(rows, { run_id: 42, source: "gate", evidence })).toBeNull();
    expect(windowBand(rows, null)).toBeNull();
  });

  it("writes the smallest change by trials", () => {
    expect(smallestChangeText(evidence.smallest_change)).toBe(
      "12% with 1 trial, 7.5% with 3, 6.1% with 5",
    );
  });
});
