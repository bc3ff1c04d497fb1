import { describe, expect, it } from "vitest";

import { isProjectSlug } from "./projects";

describe("isProjectSlug", () => {
  it("takes what the API takes", () => {
    expect(isProjectSlug("payments-eu")).toBe(true);
    expect(isProjectSlug("a".repeat(64))).toBe(true);
  });

  it("refuses the rest", () => {
    for (const bad of ["", "Payments", "-x", "a b", "a".repeat(65), "ü"]) {
      expect(isProjectSlug(bad)).toBe(false);
    }
  });
});
