import { describe, expect, it } from "vitest";

import { relativeToMedian, sharedDomain } from "./sparkline";

describe("sparklines on one scale", () => {
  it("draws each value as its change against the row's median", () => {
    const changes = relativeToMedian([100, null, 102, 98, 130]);
    expect(changes[1]).toBeNull();
    [0, null, 2, -2, 30].forEach((want, i) => {
      if (want !== null) expect(changes[i]).toBeCloseTo(want, 9);
    });
    expect(relativeToMedian([null, null])).toEqual([null, null]);
  });

  it("shares one domain: the largest change, at least ±10 %", () => {
    const wobble = relativeToMedian([100, 102, 98, 101]);
    const step = relativeToMedian([100, 100, 100, 130, 130]);
    expect(sharedDomain([wobble])).toEqual([-10, 10]);
    const [low, high] = sharedDomain([wobble, step]);
    expect(low).toBeCloseTo(-30, 9);
    expect(high).toBeCloseTo(30, 9);
  });
});
