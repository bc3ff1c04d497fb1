import { describe, expect, it } from "vitest";

import openapi from "../../openapi.json";
import { TRY_REPETITIONS } from "./jobs";
import {
  formatInterval,
  isTryRun,
  OUTCOME_TONE,
  reasonChange,
  TRY_SELECTORS,
  tryCompareHref,
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

  it("opens the compare page on its own two sides", () => {
    const href = new URL(tryCompareHref(42), "http://lab");
    expect(href.pathname).toBe("/compare");
    expect(Object.fromEntries(href.searchParams)).toEqual({
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
    expect(compare.description).toMatch(/Ten repetitions unless given/);
    expect(TRY_REPETITIONS).toBe(10);
  });
});
