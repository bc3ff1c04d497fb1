import { describe, expect, it } from "vitest";

import { tuningSummary } from "./tuning";

describe("tuningSummary", () => {
  it("counts each applied or refused setting over the trials", () => {
    const series = [
      {
        trials: [
          { tuning: { pin_cpus: "2,3", mlock: "refused: Operation not permitted" } },
          { tuning: { pin_cpus: "2,3", mlock: "refused: Operation not permitted" } },
        ],
      },
      { trials: [{ tuning: { pin_cpus: "4,5" } }, { tuning: null }] },
    ];
    expect(tuningSummary(series)).toEqual([
      { setting: "mlock", value: "refused: Operation not permitted", trials: 2, refused: true },
      { setting: "pin_cpus", value: "2,3", trials: 2, refused: false },
      { setting: "pin_cpus", value: "4,5", trials: 1, refused: false },
    ]);
    expect(tuningSummary([])).toEqual([]);
  });
});
