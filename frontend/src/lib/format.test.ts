import { describe, expect, it } from "vitest";

import {
  formatDateTime,
  formatDuration,
  formatLabels,
  pageTitle,
  shortCommit,
  trialsPerSeries,
} from "./format";

describe("formatLabels", () => {
  it("joins key=value pairs in order", () => {
    expect(formatLabels({ client: "rust" })).toBe("client=rust");
    expect(formatLabels({ pattern: "req-rep", symbol: "EURUSD.s" })).toBe(
      "pattern=req-rep, symbol=EURUSD.s",
    );
  });

  it("shows a long value by its start and end", () => {
    const command = `hyperfine --warmup 3 '${"x".repeat(200)}' && echo done-at-the-end`;
    const shown = formatLabels({ command });
    expect(shown.length).toBe("command=".length + 120);
    expect(shown.startsWith("command=hyperfine --warmup 3")).toBe(true);
    expect(shown.endsWith("echo done-at-the-end")).toBe(true);
  });

  it("names a series without labels", () => {
    expect(formatLabels({})).toBe("(all)");
  });
});

describe("shortCommit", () => {
  it("keeps ten characters", () => {
    expect(shortCommit("9f1c2e7a0b1c2d3e4f5a")).toBe("9f1c2e7a0b");
    expect(shortCommit("9f1c2e7")).toBe("9f1c2e7");
    expect(shortCommit(null)).toBe("—");
  });
});

describe("formatDateTime", () => {
  it("shows UTC to the second", () => {
    expect(formatDateTime("2026-11-22T10:00:12Z")).toBe("2026-11-22 10:00:12 UTC");
    expect(formatDateTime("2026-11-22T12:00:12+02:00")).toBe("2026-11-22 10:00:12 UTC");
  });

  it("passes through what it cannot parse", () => {
    expect(formatDateTime("yesterday")).toBe("yesterday");
    expect(formatDateTime(null)).toBe("—");
  });
});

describe("formatDuration", () => {
  it("formats seconds and minutes", () => {
    expect(formatDuration("2026-11-22T10:00:00Z", "2026-11-22T10:00:12Z")).toBe("12 s");
    expect(formatDuration("2026-11-22T10:00:00Z", "2026-11-22T10:00:01.25Z")).toBe("1.3 s");
    expect(formatDuration("2026-11-22T10:00:00Z", "2026-11-22T10:02:05Z")).toBe("2 min 5 s");
    expect(formatDuration("2026-11-22T10:00:00Z", null)).toBe("—");
  });
});

describe("trialsPerSeries", () => {
  it("gives the repetitions, or their range when series differ", () => {
    expect(trialsPerSeries([{ trials: [1, 2] }, { trials: [1, 2] }])).toBe("2");
    expect(trialsPerSeries([{ trials: [1] }, { trials: [1, 2, 3] }])).toBe("1–3");
    expect(trialsPerSeries([])).toBe("0");
  });
});

describe("pageTitle", () => {
  it("names a browser tab after its page", () => {
    expect(pageTitle("Jobs")).toBe("Jobs · latlab");
    expect(pageTitle("")).toBe("latlab");
  });
});
