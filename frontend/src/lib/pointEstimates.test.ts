import { describe, expect, it } from "vitest";

import type { SeriesRead } from "../api/types";
import { isPointSeries, pointEstimates } from "./pointEstimates";

function series(values: number[], count = 1): SeriesRead {
  return {
    labels: { bench: "BenchmarkParse" },
    trials: values.map((mean) => ({ summary: { count, mean } })),
  } as unknown as SeriesRead;
}

describe("point estimates", () => {
  it("draws one-value trials as their mean and range", () => {
    expect(isPointSeries(series([100, 130, 110]))).toBe(true);
    expect(isPointSeries(series([100, 130], 5000))).toBe(false);
    const [estimate] = pointEstimates([series([100, 130, 110])]);
    expect(estimate).toEqual({
      name: "bench=BenchmarkParse",
      mean: 340 / 3,
      range: [340 / 3 - 100, 130 - 340 / 3],
      trials: 3,
    });
  });
});
