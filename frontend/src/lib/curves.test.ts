import { describe, expect, it } from "vitest";

import type { MetricInfo, SeriesDelta, SeriesRead } from "../api/types";
import {
  comparableAxes,
  compareCurveMetrics,
  compareCurves,
  curveMetrics,
  curveRows,
  logScale,
  runCurves,
} from "./curves";

function series(id: number, labels: Record<string, string>, p99: number, rps: number): SeriesRead {
  const summary = {
    count: 1000, min: 1, max: p99 * 2, mean: p99 / 2, stddev: 1,
    p50: p99 / 3, p90: p99 / 2, p95: p99 / 1.5, p99, p999: p99, p9999: p99,
  };
  return {
    id, labels, summary, summary_uncorrected: null, unreliable: [], reported: [], interpolated: [],
    resolution_ns: null,
    metrics: { throughput: rps },
    trials: [],
  };
}

const SERIES = [
  series(1, { server: "zig", concurrency: "100" }, 900, 30_000),
  series(2, { server: "zig", concurrency: "10" }, 300, 45_000),
  series(3, { server: "go", concurrency: "10" }, 400, 39_000),
  series(4, { server: "go", concurrency: "100" }, 800, 41_000),
];
const SWEEP = { axis: "concurrency", values: [10, 100] };

function info(name: string, unit: string): MetricInfo {
  return { name, label: name, unit, direction: "higher" };
}

describe("runCurves", () => {
  it("draws one line per group of the other labels, sorted by the axis", () => {
    const curves = runCurves(SERIES, SWEEP, "p99");
    expect(curves.map((curve) => curve.name)).toEqual(["server=zig", "server=go"]);
    expect(curves[0]!.points).toEqual([{ x: 10, y: 300 }, { x: 100, y: 900 }]);
    expect(runCurves(SERIES, SWEEP, "throughput")[1]!.points.map((p) => p.y)).toEqual([
      39_000, 41_000,
    ]);
  });

  it("skips series without the axis or the metric", () => {
    const odd = [...SERIES, series(5, { server: "zig" }, 1, 1)];
    expect(runCurves(odd, SWEEP, "p99")[0]!.points).toHaveLength(2);
    expect(runCurves(SERIES, SWEEP, "nope")).toEqual([]);
  });
});

describe("curveMetrics", () => {
  it("is p50, p99 and the rates the series report", () => {
    const metricInfo = {
      throughput: info("throughput", "req/s"),
      errors: info("errors", "count"),
      messages_per_s: info("messages_per_s", "msg/s"),
    };
    expect(curveMetrics(metricInfo, SERIES)).toEqual(["p50", "p99", "throughput"]);
  });
});

describe("compareCurves", () => {
  const delta = (concurrency: string, before: number, after: number,
                 verdict: "regressed" | "unchanged"): SeriesDelta => ({
    labels: { concurrency }, baseline_series_id: 1, candidate_series_id: 2,
    baseline_labels: { server: "go", concurrency }, candidate_labels: { server: "zig", concurrency },
    metrics: [{
      metric: "p99", label: "P99", unit: "ns", direction: "lower", baseline: before,
      candidate: after, delta: after - before, delta_pct: null, verdict, confidence: "high",
      p_value: null, method: "mann-whitney", evidence: "", baseline_trials: 5,
      candidate_trials: 5, reliable: true,
    }],
  });

  it("pairs a dashed baseline with a candidate carrying each point's verdict", () => {
    const curves = compareCurves(
      [delta("100", 800, 900, "regressed"), delta("10", 400, 300, "unchanged")],
      "concurrency", "p99");
    expect(curves.map((curve) => [curve.name, curve.dashed])).toEqual([
      ["(all) baseline", true], ["(all) candidate", false]]);
    expect(curves[1]!.points).toEqual([
      { x: 10, y: 300, verdict: "unchanged" }, { x: 100, y: 900, verdict: "regressed" }]);
    const rows = curveRows(curves);
    expect(rows.map((row) => row.x)).toEqual([10, 100]);
    expect(rows[1]!.verdicts[curves[1]!.key]).toBe("regressed");
  });

  it("draws p50, p99 and the compared rates, as a run's sweep does", () => {
    const rate = (metric: string, unit: string) => ({
      ...delta("10", 1, 2, "unchanged").metrics[0]!, metric, label: metric, unit,
    });
    const compared = [
      { ...delta("10", 1, 2, "unchanged"),
        metrics: [rate("p99", "ns"), rate("errors", "count"), rate("messages_per_s", "msg/s")] },
      { ...delta("100", 1, 2, "unchanged"),
        metrics: [rate("throughput", "req/s"), rate("messages_per_s", "msg/s")] },
    ];
    expect(compareCurveMetrics(compared)).toEqual(["p50", "p99", "messages_per_s", "throughput"]);
  });
});

describe("logScale and comparableAxes", () => {
  it("uses a log axis from a tenfold span", () => {
    expect(logScale(curveRows(runCurves(SERIES, SWEEP, "p99")))).toBe(true);
    expect(logScale([{ x: 1, values: {}, verdicts: {} }, { x: 4, values: {}, verdicts: {} }]))
      .toBe(false);
  });

  it("offers the axes with two or more values, not the sweep", () => {
    expect(comparableAxes(SERIES, "concurrency")).toEqual({ server: ["zig", "go"] });
    expect(comparableAxes(SERIES.slice(0, 2), "concurrency")).toEqual({});
  });
});
