import { describe, expect, it } from "vitest";

import { isActive, isRunning } from "./states";

describe("states", () => {
  it("knows which jobs are still going", () => {
    expect(isActive("queued")).toBe(true);
    expect(isActive("running")).toBe(true);
    expect(isActive("succeeded")).toBe(false);
    expect(isActive("timed_out")).toBe(false);
  });

  it("knows which bisections are still searching", () => {
    expect(isRunning("running")).toBe(true);
    expect(isRunning("found")).toBe(false);
  });
});
