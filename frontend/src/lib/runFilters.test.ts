import { describe, expect, it } from "vitest";

import {
  activeFilterCount,
  inputToIso,
  isoToInput,
  nextOrder,
  queryFromSearch,
  rangeStart,
  searchOf,
  withFilter,
  withFilters,
} from "./runFilters";

describe("queryFromSearch", () => {
  it("reads filters, source, time range and paging", () => {
    const query = queryFromSearch(
      new URLSearchParams(
        "suite=echo&branch=+main+&source=ci&since=2026-11-20T00:00:00Z&offset=50&host=",
      ),
    );
    expect(query).toEqual({
      limit: 50,
      offset: 50,
      suite_prefix: "echo",
      branch: "main",
      source: "ci",
      since: "2026-11-20T00:00:00Z",
    });
    expect(activeFilterCount(query)).toBe(4);
  });

  it("reads the verdict and the order, the default order left out", () => {
    expect(queryFromSearch(new URLSearchParams("verdict=none&order=suite"))).toEqual({
      limit: 50,
      offset: 0,
      verdict: "none",
      order: "suite",
    });
    expect(queryFromSearch(new URLSearchParams("order=-started_at&verdict=maybe"))).toEqual({
      limit: 50,
      offset: 0,
    });
  });

  it("turns a column's order around on a second click", () => {
    expect(nextOrder("-started_at", "started_at")).toBe("started_at");
    expect(nextOrder("started_at", "started_at")).toBe("-started_at");
    expect(nextOrder("-started_at", "suite")).toBe("suite");
    expect(nextOrder("suite", "suite")).toBe("-suite");
    expect(nextOrder("suite", "p99")).toBe("-p99");
    expect(nextOrder("-p99", "p99")).toBe("p99");
    expect(nextOrder("p99", "p99")).toBe("-p99");
  });

  it("ignores what the API would refuse", () => {
    expect(
      queryFromSearch(new URLSearchParams("source=cron&offset=-5&limit=0&until=tomorrow")),
    ).toEqual({
      limit: 50,
      offset: 0,
    });
  });
});

describe("withFilter", () => {
  it("sets or clears a filter and goes back to the first page", () => {
    const search = new URLSearchParams("suite=echo&offset=100");
    expect(withFilter(search, "branch", "main").toString()).toBe("suite=echo&branch=main");
    expect(withFilter(search, "suite", " ").toString()).toBe("");
  });

  it("sets several at once, a repeated one as a list, and removes the null ones", () => {
    const search = new URLSearchParams("suite=echo&series=a&series=b&run=3&offset=50");
    expect(withFilters(search, { series: ["c"], run: null, branch: " main " }).toString()).toBe(
      "suite=echo&series=c&branch=main",
    );
  });

  it("builds search params of the filters that are set, in order", () => {
    expect(searchOf({ suite: " echo ", host: "", run: null, series: ["a", "b"] }).toString()).toBe(
      "suite=echo&series=a&series=b",
    );
    expect(searchOf({}).toString()).toBe("");
  });
});

describe("time inputs", () => {
  it("reads datetime-local values as UTC", () => {
    expect(inputToIso("2026-11-22T10:30")).toBe("2026-11-22T10:30:00Z");
    expect(isoToInput("2026-11-22T10:30:00Z")).toBe("2026-11-22T10:30");
    expect(inputToIso("")).toBe("");
    expect(isoToInput("nonsense")).toBe("");
  });

  it("computes ranges back from now", () => {
    expect(rangeStart(24, new Date("2026-11-22T10:30:00.123Z"))).toBe("2026-11-21T10:30:00Z");
  });
});
