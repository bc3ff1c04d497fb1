import { describe, expect, it } from "vitest";

import { parseTuning, tuningSummary } from "./tuning";

describe("tuningSummary", () => {
  it("counts each applied, refused or unrequested setting over the trials", () => {
    const series = [
      {
        trials: [
          { tuning: { pin_cpus: "applied: 2,3", mlock: "refused: Operation not permitted" } },
          { tuning: { pin_cpus: "applied: 2,3", mlock: "refused: Operation not permitted" } },
        ],
      },
      { trials: [{ tuning: { pin_cpus: "off" } }, { tuning: null }] },
    ];
    expect(tuningSummary(series)).toEqual([
      {
        setting: "mlock",
        value: "refused: Operation not permitted",
        trials: 2,
        state: "refused",
        detail: "Operation not permitted",
      },
      { setting: "pin_cpus", value: "applied: 2,3", trials: 2, state: "applied", detail: "2,3" },
      { setting: "pin_cpus", value: "off", trials: 1, state: "off", detail: "" },
    ]);
    expect(tuningSummary([])).toEqual([]);
  });

  it("reads the states of the suites' contract and leaves other values alone", () => {
    expect(parseTuning("applied")).toEqual({ state: "applied", detail: "" });
    expect(parseTuning("Refused: EPERM")).toEqual({ state: "refused", detail: "EPERM" });
    expect(parseTuning("performance")).toEqual({ state: "other", detail: "performance" });
  });
});
