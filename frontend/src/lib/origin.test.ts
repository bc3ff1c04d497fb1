import { describe, expect, it } from "vitest";

import { formatLatency, originNote } from "./origin";

describe("originNote", () => {
  const origin = { reported: ["p50", "p95", "max"], interpolated: ["p99", "stddev"] };

  it("says a harness's own statistic is its own, unmarked", () => {
    expect(originNote("p95", origin)).toEqual({
      mark: "",
      note: "as the benchmark harness printed it",
    });
  });

  it("marks an interpolated statistic", () => {
    expect(originNote("p99", origin)?.mark).toBe("~");
    expect(originNote("stddev", origin)?.note).toMatch(/^interpolated/);
  });

  it("says nothing of a statistic computed from the whole distribution", () => {
    expect(originNote("p90", origin)).toBeNull();
    expect(originNote("p90", { reported: [], interpolated: [] })).toBeNull();
  });
});

describe("formatLatency", () => {
  it("says a value under the harness's step is under it", () => {
    const ab = { reported: [], interpolated: [], resolution_ns: 1_000_000 };
    expect(formatLatency(0, ab)).toBe("< 1 ms");
    expect(formatLatency(2_000_000, ab)).toBe("2 ms");
    expect(formatLatency(0, { reported: [], interpolated: [] })).toBe("0 ns");
  });
});
