import { describe, expect, it } from "vitest";

import openapi from "../../openapi.json";
import { TRY_REPETITIONS } from "./jobs";
import {
  describeStages,
  formatInterval,
  isTryRun,
  OUTCOME_TONE,
  reasonChange,
  TRY_SELECTORS,
  tryCompareHref,
  tryProfilesHref,
} from "./tries";

describe("a try job's run", () => {
  it("is told by its series' side label", () => {
    expect(isTryRun({ series: [] })).toBe(false);
    const series = (labels: Record<string, string>) => ({ labels }) as never;
    expect(isTryRun({ series: [series({ client: "python" })] })).toBe(false);
    expect(
      isTryRun({ series: [series({ side: "base", repo: "orders" }), series({ side: "head" })] }),
    ).toBe(true);
  });

  it.each([
    ["the compare page", tryCompareHref, "/compare"],
    ["the differential flame graph", tryProfilesHref, "/compare/profiles"],
  ])("opens %s on its own two sides", (_, href, pathname) => {
    const url = new URL(href(42), "http://lab");
    expect(url.pathname).toBe(pathname);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      baseline: "42",
      candidate: "42",
      baseline_labels: JSON.stringify(TRY_SELECTORS.baseline),
      candidate_labels: JSON.stringify(TRY_SELECTORS.candidate),
    });
    expect(TRY_SELECTORS).toEqual({ baseline: { side: "base" }, candidate: { side: "head" } });
  });

  it("reads each metric's change and its interval", () => {
    expect(reasonChange({ baseline: 1.1, candidate: 1.1671 })).toBe("+6.1%");
    expect(reasonChange({ baseline: 200, candidate: 190 })).toBe("−5%");
    expect(reasonChange({ baseline: null, candidate: 3 })).toBeNull();
    expect(formatInterval([0.032, 0.089])).toBe("+3.2% to +8.9%");
    expect(formatInterval([-0.0061, 0.022])).toBe("−0.6% to +2.2%");
    expect(formatInterval(null)).toBeNull();
  });

  it("has a tone for every outcome the API gives", () => {
    const reason = openapi.components.schemas.VerdictReason.properties.outcome;
    const outcomes = reason.anyOf.flatMap((item) => ("enum" in item ? item.enum : []));
    expect(Object.keys(OUTCOME_TONE).sort()).toEqual([...outcomes].sort());
  });

  it("starts from the API's repetitions for a try job", () => {
    const compare = openapi.components.schemas.JobCreate.properties.compare;
    expect(compare.description).toMatch(/its first stage's repetitions \(ten unless given\)/);
    expect(TRY_REPETITIONS).toBe(10);
  });
});

describe("a try job's stages", () => {
  const looks = [10, 20, 40];
  const measured = [
    { trials: 10, seconds: 93.1 },
    { trials: 10, seconds: 88.9 },
    { trials: 20, seconds: 70 },
  ];
  const stages = (done: number) => ({ looks, cap_s: null, measured: measured.slice(0, done) });

  it("says the look a job measures toward, and the trials it has", () => {
    expect(describeStages({ status: "queued", stages: stages(0) })).toBe("look 1 of 3");
    expect(describeStages({ status: "running", stages: stages(1) })).toBe(
      "look 2 of 3 · 10 trials a side measured",
    );
    expect(describeStages({ status: "queued", stages: stages(2) })).toBe(
      "look 3 of 3 · 20 trials a side measured",
    );
  });

  it("sums its stages once it ended", () => {
    expect(describeStages({ status: "succeeded", stages: stages(1) })).toBe(
      "1 stage · 10 trials a side · 1.6 min",
    );
    expect(describeStages({ status: "succeeded", stages: stages(3) })).toBe(
      "3 stages · 40 trials a side · 4.2 min",
    );
    expect(describeStages({ status: "cancelled", stages: stages(2) })).toBe(
      "2 stages · 20 trials a side · 3.0 min",
    );
    expect(describeStages({ status: "failed", stages: stages(0) })).toBeNull();
  });

  it("is nothing for a job without stages, or with stages it cannot read", () => {
    expect(describeStages({ status: "running", stages: null })).toBeNull();
    expect(describeStages({ status: "running", stages: { looks: [], measured: [] } })).toBeNull();
    expect(describeStages({ status: "running", stages: { measured: [] } })).toBeNull();
  });
});
