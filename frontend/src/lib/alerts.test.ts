import { describe, expect, it } from "vitest";

import { alertLink, alertNumbers, alertProfilesLink, severityTone, stateTone } from "./alerts";

describe("alerts", () => {
  it("shows the value against its baseline or threshold in the alert's unit", () => {
    expect(
      alertNumbers({ value: 650_000, baseline_value: 500_000, threshold: null, unit: "ns" }),
    ).toBe("650 µs (baseline 500 µs)");
    expect(
      alertNumbers(
        { value: 9_500, baseline_value: null, threshold: 10_000, unit: "req/s" },
        "req/s",
      ),
    ).toBe("9.5k req/s (threshold 10k req/s)");
    expect(
      alertNumbers({ value: 2_500_000, baseline_value: null, threshold: 2, unit: "ns" }, "ms"),
    ).toBe("2.5 ms (threshold 2 ms)");
    expect(alertNumbers({ value: 2_500_000, baseline_value: null, threshold: 2, unit: "ns" })).toBe(
      "2.5 ms",
    );
    expect(alertNumbers({ value: null, baseline_value: null, threshold: null, unit: "" })).toBe(
      "—",
    );
  });

  it("links to the comparison when there is a baseline", () => {
    expect(alertLink({ run_id: 7, baseline_run_id: 3 })).toEqual({
      href: "/compare?baseline=3&candidate=7",
      text: "Comparison",
    });
    expect(alertLink({ run_id: 7, baseline_run_id: null })).toEqual({
      href: "/runs/7",
      text: "Run #7",
    });
    expect(alertLink({ run_id: null, baseline_run_id: null })).toBeNull();
  });

  it("links a confirmed regression to its confirmation's CPU profiles", () => {
    expect(alertProfilesLink({ confirmation_run_id: 12 })).toEqual({
      href:
        "/compare/profiles?baseline=12&candidate=12" +
        "&baseline_labels=%7B%22variant%22%3A%22baseline%22%7D" +
        "&candidate_labels=%7B%22variant%22%3A%22candidate%22%7D",
      text: "CPU profiles",
    });
    expect(alertProfilesLink({ confirmation_run_id: null })).toBeNull();
  });

  it("gives states and severities a tone", () => {
    expect(stateTone("open")).toBe("bad");
    expect(stateTone("resolved")).toBe("good");
    expect(severityTone("critical")).toBe("bad");
  });
});
