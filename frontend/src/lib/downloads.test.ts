import { describe, expect, it } from "vitest";

import { profileFoldedUrl, runCsvUrl, trialHlogUrl } from "./downloads";

describe("download addresses", () => {
  it("fill the route templates", () => {
    expect(runCsvUrl(12)).toBe("/api/v1/runs/12/summary.csv");
    expect(trialHlogUrl(12, 40, 0)).toBe("/api/v1/runs/12/series/40/trials/0/hlog");
    expect(profileFoldedUrl(12, 7)).toBe("/api/v1/runs/12/profiles/7?format=folded");
  });
});
