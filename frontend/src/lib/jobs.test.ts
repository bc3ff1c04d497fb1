import { describe, expect, it } from "vitest";

import {
  checkLaunch,
  formatProgress,
  isActive,
  parseRepetitions,
  parseTags,
  parseTimeout,
} from "./jobs";

describe("jobs", () => {
  it("knows which states are still going", () => {
    expect(isActive("queued")).toBe(true);
    expect(isActive("running")).toBe(true);
    expect(isActive("succeeded")).toBe(false);
    expect(isActive("timed_out")).toBe(false);
  });

  it("parses host tags", () => {
    expect(parseTags(" hft-tuned, x86 x86 ")).toEqual({ tags: ["hft-tuned", "x86"] });
    expect(parseTags("")).toEqual({ tags: [] });
    expect(parseTags("Tuned")).toEqual({
      error: '"Tuned" is not a tag (lower-case letters, digits, . _ -)',
    });
  });

  it("formats progress", () => {
    expect(formatProgress(42.7)).toBe("42%");
    expect(formatProgress(140)).toBe("100%");
    expect(formatProgress(Number.NaN)).toBe("0%");
  });

  it("checks repetitions and timeout", () => {
    expect(parseRepetitions("3")).toEqual({ value: 3 });
    expect(parseRepetitions("0")).toHaveProperty("error");
    expect(parseRepetitions("1.5")).toHaveProperty("error");
    expect(parseTimeout("900")).toEqual({ value: 900 });
    expect(parseTimeout("5")).toHaveProperty("error");
  });

  it("checks the launch form's own fields together", () => {
    expect(checkLaunch({ tags: "x86", repetitions: "3", timeout: "600" })).toEqual({
      fields: { host_tags: ["x86"], repetitions: 3, timeout_s: 600 },
    });
    expect(checkLaunch({ tags: "X", repetitions: "0", timeout: "600" })).toEqual({
      errors: {
        tags: '"X" is not a tag (lower-case letters, digits, . _ -)',
        repetitions: "a whole number from 1 to 100",
      },
    });
  });
});
