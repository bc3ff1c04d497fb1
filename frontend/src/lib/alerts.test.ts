import { describe, expect, it } from "vitest";

import {
  actionable,
  alertLink,
  alertLinks,
  alertNumbers,
  alertProfilesLink,
  assigneeName,
  groupByCommit,
  severityTone,
  shortCommit,
  stateTone,
} from "./alerts";

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

describe("triage", () => {
  const alert = {
    run_id: 7,
    baseline_run_id: 3,
    suite: "http-order",
    scenario: "medium",
    metric: "p99",
    series_labels: { client: "go", pool: 8 },
  };

  it("links an alert to its run, its comparison and its trend around the run", () => {
    expect(alertLinks(alert)).toEqual([
      { href: "/runs/7", text: "Run #7" },
      { href: "/compare?baseline=3&candidate=7", text: "Comparison" },
      {
        href:
          "/trends?suite=http-order&scenario=medium&metric=p99" +
          "&series=%7B%22client%22%3A%22go%22%2C%22pool%22%3A%228%22%7D&run=7",
        text: "Trend",
      },
    ]);
    expect(alertLinks({ ...alert, run_id: null }).map((link) => link.text)).toEqual(["Trend"]);
  });

  it("groups alerts by their run's commit, in the order of their newest alert", () => {
    const alerts = [
      { id: 9, commit: "bbbb222", branch: "main" },
      { id: 8, commit: "aaaa111", branch: "feature" },
      { id: 7, commit: "bbbb222", branch: "main" },
      { id: 6, commit: null, branch: null },
      { id: 5, commit: "aaaa111", branch: "hotfix" },
    ];
    expect(
      groupByCommit(alerts).map((group) => [
        group.commit,
        group.branches,
        group.alerts.map((a) => a.id),
      ]),
    ).toEqual([
      ["bbbb222", ["main"], [9, 7]],
      ["aaaa111", ["feature", "hotfix"], [8, 5]],
      [null, [], [6]],
    ]);
  });

  it("applies an action to the alerts in a state for it", () => {
    const alerts = [
      { id: 1, state: "open" as const },
      { id: 2, state: "acknowledged" as const },
      { id: 3, state: "resolved" as const },
    ];
    expect(actionable(alerts, "acknowledge")).toEqual([1]);
    expect(actionable(alerts, "resolve")).toEqual([1, 2]);
  });

  it("shortens full commit hashes only", () => {
    expect(shortCommit("0123456789abcdef0123456789abcdef01234567")).toBe("0123456789ab");
    expect(shortCommit("aaaa111")).toBe("aaaa111");
    expect(shortCommit("v1.2-rc")).toBe("v1.2-rc");
  });
});

describe("assigneeName", () => {
  it("names a user by their name, else their email, else their id", () => {
    const users = [
      { id: 1, email: "ada@lab.example", name: "Ada" },
      { id: 2, email: "grace@lab.example", name: null },
    ];
    expect(assigneeName(users, 1)).toBe("Ada");
    expect(assigneeName(users, 2)).toBe("grace@lab.example");
    expect(assigneeName(users, 3)).toBe("user #3");
  });
});
