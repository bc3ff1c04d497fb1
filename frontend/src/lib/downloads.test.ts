import { describe, expect, it } from "vitest";

import { runCsvUrl, trialHlogUrl } from "./downloads";

describe("download addresses", () => {
  it("fill the route templates", () => {
    expect(runCsvUrl(12)).toBe("/api/v1/runs/12/summary.csv");
    expect(trialHlogUrl(12, 40, 0)).toBe("/api/v1/runs/12/series/40/trials/0/hlog");
  });
});
