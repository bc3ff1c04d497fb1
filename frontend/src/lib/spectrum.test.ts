import { describe, expect, it } from "vitest";

import {
  formatX,
  overlayLines,
  percentileTicks,
  percentileToX,
  spectrumLines,
  spectrumRows,
  xLabel,
  xDomain,
  xToPercentile,
  type SpectrumInput,
} from "./spectrum";

const rust: SpectrumInput = {
  series_id: 7,
  labels: { client: "rust" },
  corrected: [
    { percentile: 0, value: 100_000 },
    { percentile: 50, value: 350_000 },
    { percentile: 99, value: 500_000 },
    { percentile: 99.9, value: 750_000 },
    { percentile: 100, value: 900_000 },
  ],
  uncorrected: [
    { percentile: 50, value: 340_000 },
    { percentile: 99, value: 480_000 },
  ],
};

const go: SpectrumInput = {
  series_id: 8,
  labels: { client: "go" },
  corrected: [
    { percentile: 50, value: 400_000 },
    { percentile: 90, value: 450_000 },
  ],
  uncorrected: null,
};

describe("percentileToX", () => {
  it("maps each nine to a power of ten", () => {
    expect(percentileToX(0)).toBe(1);
    expect(percentileToX(50)).toBe(2);
    expect(percentileToX(90)).toBeCloseTo(10, 9);
    expect(percentileToX(99)).toBeCloseTo(100, 9);
    expect(percentileToX(99.9)).toBeCloseTo(1000, 6);
    expect(percentileToX(99.99)).toBeCloseTo(10000, 4);
  });

  it("is inverted by xToPercentile", () => {
    for (const p of [0, 25, 50, 90, 99, 99.9, 99.99]) {
      expect(xToPercentile(percentileToX(p))).toBeCloseTo(p, 9);
    }
  });

  it("labels x values as percentiles", () => {
    expect(formatX(percentileToX(99.9))).toBe("99.9%");
    expect(formatX(2)).toBe("50%");
  });
});

describe("spectrumLines", () => {
  it("adds a dashed line for the uncorrected view in the series' colour", () => {
    const lines = spectrumLines([rust, go]);
    expect(lines.map((l) => [l.key, l.name, l.seriesIndex, l.dashed])).toEqual([
      ["s7", "client=rust", 0, false],
      ["s7-uncorrected", "client=rust (uncorrected)", 0, true],
      ["s8", "client=go", 1, false],
    ]);
    expect(lines[1]!.points).toBe(rust.uncorrected);
  });
});

describe("spectrumRows", () => {
  it("merges points by percentile, sorted, the max one nine past the last", () => {
    const rows = spectrumRows(spectrumLines([rust, go]));
    expect(rows.map((r) => r.percentile)).toEqual([0, 50, 90, 99, 99.9, 100]);
    // The max (percentile 100) one "nine" past 99.9 %, where 99.99 % would be, labelled max.
    expect(rows[5]!.x).toBeCloseTo(10_000, 6);
    expect(rows[5]!.values).toEqual({ s7: 900_000 });
    expect(xLabel(rows)(rows[5]!.x)).toBe("max");
    expect(xLabel(rows)(rows[4]!.x)).toBe("99.9%");
    expect(rows[1]).toEqual({
      x: 2,
      percentile: 50,
      values: { s7: 350_000, "s7-uncorrected": 340_000, s8: 400_000 },
    });
    expect(rows[2]!.values).toEqual({ s8: 450_000 });
    expect(rows[4]!.x).toBeCloseTo(1000, 6);
  });

  it("is empty for no lines", () => {
    expect(spectrumRows([])).toEqual([]);
  });
});

describe("percentileTicks", () => {
  it("keeps the standard ticks inside the data's range", () => {
    const rows = spectrumRows(spectrumLines([rust]));
    expect(xDomain(rows)[0]).toBe(1);
    expect(xDomain(rows)[1]).toBeCloseTo(10_000, 6);
    expect(percentileTicks(rows).map((t) => t.label)).toEqual([
      "50%",
      "90%",
      "99%",
      "99.9%",
      "max",
    ]);
  });

  it("includes 99.99% when the data reaches it", () => {
    const rows = spectrumRows(
      spectrumLines([{ ...go, corrected: [...go.corrected, { percentile: 99.99, value: 1 }] }]),
    );
    const ticks = percentileTicks(rows);
    expect(ticks.map((t) => t.label)).toEqual(["50%", "90%", "99%", "99.9%", "99.99%"]);
    expect(ticks[4]!.x).toBeCloseTo(10000, 4);
  });

  it("has no ticks without data", () => {
    expect(percentileTicks([])).toEqual([]);
  });
});

describe("overlayLines", () => {
  it("draws baseline dashed and candidate solid in one colour per series", () => {
    const candidateGo: SpectrumInput = { ...go, series_id: 18 };
    const candidateRust: SpectrumInput = { ...rust, series_id: 17 };
    const lines = overlayLines([
      { labels: rust.labels, baseline: rust, candidate: candidateRust },
      { labels: go.labels, baseline: go, candidate: candidateGo },
    ]);
    expect(lines.map((l) => [l.key, l.name, l.seriesIndex, l.dashed])).toEqual([
      ["b7", "client=rust (baseline)", 0, true],
      ["c17", "client=rust (candidate)", 0, false],
      ["b8", "client=go (baseline)", 1, true],
      ["c18", "client=go (candidate)", 1, false],
    ]);
    expect(lines[0]!.points).toBe(rust.corrected);
    const rows = spectrumRows(lines);
    expect(rows.find((r) => r.percentile === 50)!.values).toEqual({
      b7: 350_000,
      c17: 350_000,
      b8: 400_000,
      c18: 400_000,
    });
  });
});
