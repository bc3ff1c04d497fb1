import { describe, expect, it } from "vitest";

import openapi from "../../openapi.json";

import {
  checkLaunch,
  describeEstimate,
  formatProgress,
  formatSeconds,
  LAB_REPETITIONS,
  parseMaxMinutes,
  parseRepetitions,
  parseTags,
  parseTimeout,
} from "./jobs";

describe("jobs", () => {
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

  it("starts from the API's default repetitions", () => {
    const schema = openapi.components.schemas.JobCreate.properties.repetitions;
    expect(schema.default).toBe(LAB_REPETITIONS);
  });

  it("checks repetitions and timeout", () => {
    expect(parseRepetitions("3")).toEqual({ value: 3 });
    expect(parseRepetitions("0")).toHaveProperty("error");
    expect(parseRepetitions("1.5")).toHaveProperty("error");
    expect(parseTimeout("900")).toEqual({ value: 900 });
    expect(parseTimeout("5")).toHaveProperty("error");
    expect(parseTimeout(" ")).toEqual({ value: undefined });
  });

  it("checks a try job's cap of lab time against the API's bounds", () => {
    const [bounded] = openapi.components.schemas.Compare.properties.max_minutes.anyOf;
    expect(bounded).toMatchObject({ type: "integer", minimum: 1, maximum: 360 });
    expect(parseMaxMinutes("1")).toEqual({ value: 1 });
    expect(parseMaxMinutes(" 360 ")).toEqual({ value: 360 });
    expect(parseMaxMinutes("")).toEqual({ value: undefined });
    for (const text of ["0", "361", "2.5", "-5", "ten"])
      expect(parseMaxMinutes(text)).toEqual({ error: "whole minutes from 1 to 360" });
  });

  it("says how long a job takes in the unit that reads best", () => {
    expect(formatSeconds(42.4)).toBe("42 s");
    expect(formatSeconds(750)).toBe("13 min");
    expect(formatSeconds(4320)).toBe("72 min");
    expect(formatSeconds(9000)).toBe("2.5 h");
    expect(describeEstimate({ series: 8, trials: 5, estimate_s: 2480, timeout_s: 4320 })).toBe(
      "About 41 min: 8 series × 5 trials; timeout 72 min",
    );
    expect(describeEstimate({ series: 1, trials: 1, estimate_s: null, timeout_s: 900 })).toBe(
      "No estimate from the suite: 1 series × 1 trials; timeout 15 min",
    );
  });

  it("checks the launch form's own fields together", () => {
    expect(checkLaunch({ tags: "x86", repetitions: "3", timeout: "600" })).toEqual({
      fields: { host_tags: ["x86"], repetitions: 3, timeout_s: 600 },
    });
    expect(checkLaunch({ tags: "", repetitions: "5", timeout: "" })).toEqual({
      fields: { host_tags: [], repetitions: 5 },
    });
    expect(checkLaunch({ tags: "X", repetitions: "0", timeout: "600" })).toEqual({
      errors: {
        tags: '"X" is not a tag (lower-case letters, digits, . _ -)',
        repetitions: "a whole number from 1 to 100",
      },
    });
  });
});
