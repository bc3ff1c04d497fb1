import { describe, expect, it } from "vitest";

import { changePct, rowLabels, splitLabels } from "./summaryTable";

describe("summary table", () => {
  it("says shared labels once and names rows by the rest", () => {
    const series = [
      { labels: { client: "rust", load: "hdr", concurrency: 10 } },
      { labels: { client: "rust", load: "hdr", concurrency: 100 } },
    ];
    expect(splitLabels(series)).toEqual({
      common: { client: "rust", load: "hdr" },
      varying: ["concurrency"],
    });
    expect(rowLabels(series[1]!.labels, ["concurrency"])).toEqual({ concurrency: "100" });
  });

  it("keeps a single series' labels on its row", () => {
    expect(splitLabels([{ labels: { client: "go" } }])).toEqual({
      common: {},
      varying: ["client"],
    });
  });

  it("computes a change only against a base", () => {
    expect(changePct(130, 100)).toBeCloseTo(30);
    expect(changePct(90, 100)).toBeCloseTo(-10);
    expect(changePct(1, 0)).toBeNull();
    expect(changePct(null, 100)).toBeNull();
  });
});
