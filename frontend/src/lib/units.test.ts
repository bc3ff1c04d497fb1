import { describe, expect, it } from "vitest";

import {
  formatCount,
  formatDelta,
  formatDeltaPct,
  formatNs,
  formatNumber,
  formatPercentile,
  formatRate,
  formatRatio,
  formatValue,
} from "./units";

describe("formatNs", () => {
  it.each([
    [0, "0 ns"],
    [1, "1 ns"],
    [999, "999 ns"],
    [1_000, "1 µs"],
    [1_234, "1.23 µs"],
    [350_000, "350 µs"],
    [500_000, "500 µs"],
    [1_250_000, "1.25 ms"],
    [12_345_678, "12.3 ms"],
    [141_000_000, "141 ms"],
    [2_100_000_000, "2.1 s"],
    [5_000_000_000, "5 s"],
    [3_600_000_000_000, "3600 s"],
  ])("%d ns -> %s", (ns, expected) => {
    expect(formatNs(ns)).toBe(expected);
  });

  it("carries rounding into the next unit", () => {
    expect(formatNs(999_999)).toBe("1 ms");
    expect(formatNs(999.6)).toBe("1 µs");
    expect(formatNs(999_999_999)).toBe("1 s");
  });

  it("keeps fractions of a nanosecond and negative values", () => {
    expect(formatNs(0.5)).toBe("0.5 ns");
    expect(formatNs(-1_500)).toBe("-1.5 µs");
  });

  it("shows a dash for missing values", () => {
    expect(formatNs(null)).toBe("—");
    expect(formatNs(undefined)).toBe("—");
    expect(formatNs(Number.NaN)).toBe("—");
    expect(formatNs(Number.POSITIVE_INFINITY)).toBe("—");
  });
});

describe("formatRate", () => {
  it.each([
    [115_554, "115.6k req/s"],
    [45_700, "45.7k req/s"],
    [2_000, "2k req/s"],
    [950, "950 req/s"],
    [12.54, "12.5 req/s"],
    [763_000, "763k req/s"],
    [1_250_000, "1.3M req/s"],
    [999_960, "1M req/s"],
  ])("%d -> %s", (rate, expected) => {
    expect(formatRate(rate)).toBe(expected);
  });

  it("takes the unit from the caller", () => {
    expect(formatRate(763_123, "msg/s")).toBe("763.1k msg/s");
  });

  it("shows a dash for missing values", () => {
    expect(formatRate(null)).toBe("—");
  });
});

describe("formatPercentile", () => {
  it("drops trailing zeros and float noise", () => {
    expect(formatPercentile(50)).toBe("50%");
    expect(formatPercentile(99.9)).toBe("99.9%");
    expect(formatPercentile(99.99000000000001)).toBe("99.99%");
    expect(formatPercentile(100 * (1 - 1 / 10000))).toBe("99.99%");
  });
});

describe("formatCount", () => {
  it("groups thousands", () => {
    expect(formatCount(1_234_567)).toBe("1,234,567");
    expect(formatCount(0)).toBe("0");
    expect(formatCount(null)).toBe("—");
  });
});

describe("formatValue", () => {
  it.each([
    [350_000, "ns", "350 µs"],
    [1.5, "ms", "1.5 ms"],
    [250, "us", "250 µs"],
    [115_554, "req/s", "115.6k req/s"],
    [763_123, "msg/s", "763.1k msg/s"],
    [0.995, "ratio", "99.5%"],
    [1, "ratio", "100%"],
    [20, "%", "20%"],
    [12_345, "count", "12,345"],
    [2.5, "count", "2.5"],
    [512.34, "MB", "512 MB"],
    [12.345, "MB", "12.3 MB"],
    [42, "", "42"],
    [1_234_567.8, "", "1,234,568"],
  ])("%d %s -> %s", (value, unit, expected) => {
    expect(formatValue(value, unit)).toBe(expected);
  });

  it("shows a dash for missing values", () => {
    expect(formatValue(null, "ns")).toBe("—");
    expect(formatValue(Number.NaN, "req/s")).toBe("—");
  });
});

describe("formatRatio and formatNumber", () => {
  it("formats as people write them", () => {
    expect(formatRatio(0.99987)).toBe("99.99%");
    expect(formatNumber(0.012345)).toBe("0.01");
    expect(formatNumber(999.4)).toBe("999");
    expect(formatNumber(undefined)).toBe("—");
  });
});

describe("formatDelta", () => {
  it("signs the difference in the value's unit", () => {
    expect(formatDelta(150_000, "ns")).toBe("+150 µs");
    expect(formatDelta(-222_850_000, "ns")).toBe("−223 ms");
    expect(formatDelta(-5_200, "req/s")).toBe("−5.2k req/s");
    expect(formatDelta(0, "ns")).toBe("±0 ns");
    expect(formatDelta(76, "count")).toBe("+76");
    expect(formatDelta(null, "ns")).toBe("—");
  });
});

describe("formatDeltaPct", () => {
  it("keeps one decimal and a sign", () => {
    expect(formatDeltaPct(30.14)).toBe("+30.1%");
    expect(formatDeltaPct(-61.2)).toBe("−61.2%");
    expect(formatDeltaPct(0.01)).toBe("±0%");
    expect(formatDeltaPct(250.4)).toBe("+250%");
    expect(formatDeltaPct(null)).toBe("—");
  });
});

