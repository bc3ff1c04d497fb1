import { describe, expect, it } from "vitest";

import type { CompareRead, MetricDelta, Spectrum } from "../api/types";
import {
  multiCompareHref,
  multiRows,
  parseRunIds,
  pickedLines,
  spectrumPicks,
  SPECTRUM_SERIES,
} from "./multiCompare";

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

  it("overlays the first few series of every run, the baseline's dashed", () => {
    const comparisons = [2, 3].map(
      (candidate) =>
        ({
          baseline: { id: 1 },
          candidate: { id: candidate },
          series: [1, 2, 3, 4, 5].map((id) => ({
            labels: { client: `c${String(id)}` },
            baseline_series_id: id,
            candidate_series_id: 100 * candidate + id,
            metrics: [],
          })),
        }) as unknown as CompareRead,
    );
    const picks = spectrumPicks(comparisons);
    expect(picks).toHaveLength(3 * SPECTRUM_SERIES);
    expect(picks[0]).toEqual({ runId: 1, seriesId: 1, labels: { client: "c1" }, runIndex: 0 });
    expect(picks[SPECTRUM_SERIES]).toMatchObject({ runId: 2, seriesId: 201, runIndex: 1 });
    const spectra = [{ series_id: 1, corrected: [] }, { series_id: 301, corrected: [] }];
    expect(pickedLines(picks, spectra as unknown as Spectrum[])).toEqual([
      { key: "1-1", name: "#1 client=c1", seriesIndex: 0, dashed: true, points: [] },
      { key: "3-301", name: "#3 client=c1", seriesIndex: 2, dashed: false, points: [] },
    ]);
    expect(spectrumPicks([])).toEqual([]);
  });
});
