/**
 * The runs list's filters and paging live in the URL (?suite=echo&since=...&offset=50), so a
 * view can be shared; these turn the search params into the API query and back.
 */

import type { RunListQuery } from "../api/types";

export const PAGE_SIZE = 50;
export const TEXT_FILTERS = ["suite", "scenario", "branch", "commit", "host"] as const;
export const SOURCES = ["ci", "job", "manual"] as const;
/** The gate's verdicts, and "none" for runs it did not judge. */
export const VERDICTS = ["pass", "fail", "inconclusive", "no-baseline", "none"] as const;
/** Orders of the list: newest first is the default, so the URL names it only otherwise. */
export const ORDERS = ["-started_at", "started_at", "suite", "-suite", "-p99", "p99"] as const;
export type RunOrder = (typeof ORDERS)[number];

export type TextFilter = (typeof TEXT_FILTERS)[number];

/** Ready-made time ranges, as hours back from now. */
export const RANGES = [
  { id: "24h", label: "Last 24 hours", hours: 24 },
  { id: "7d", label: "Last 7 days", hours: 24 * 7 },
  { id: "30d", label: "Last 30 days", hours: 24 * 30 },
] as const;

export function queryFromSearch(search: URLSearchParams): RunListQuery {
  const query: RunListQuery = {
    limit: nonNegativeInt(search.get("limit"), PAGE_SIZE) || PAGE_SIZE,
    offset: nonNegativeInt(search.get("offset"), 0),
  };
  for (const name of TEXT_FILTERS) {
    const value = search.get(name)?.trim();
    // The suite box matches suites by their start, in any case ("ZIG" finds zig-http).
    if (value && name === "suite") query.suite_prefix = value;
    else if (value) query[name] = value;
  }
  const source = search.get("source");
  const kind = SOURCES.find((candidate) => candidate === source);
  if (kind) query.source = kind;
  const verdict = VERDICTS.find((candidate) => candidate === search.get("verdict"));
  if (verdict) query.verdict = verdict;
  const order = ORDERS.find((candidate) => candidate === search.get("order"));
  if (order && order !== "-started_at") query.order = order;
  for (const name of ["since", "until"] as const) {
    const value = search.get(name);
    if (value && !Number.isNaN(new Date(value).getTime())) query[name] = value;
  }
  return query;
}

/** A filter's value in the URL: one, several (a param repeated), or none (null, blank). */
export type FilterValue = string | readonly string[] | null;

/** A copy of the search params with one filter set (or removed when blank); back to page 1. */
export function withFilter(search: URLSearchParams, name: string, value: string): URLSearchParams {
  return withFilters(search, { [name]: value });
}

/** A copy of the search params with these filters set (or removed), the others kept; back to
 * page 1. */
export function withFilters(
  search: URLSearchParams,
  values: Record<string, FilterValue>,
): URLSearchParams {
  const next = new URLSearchParams(search);
  for (const [name, value] of Object.entries(values)) {
    next.delete(name);
    for (const item of typeof value === "string" ? [value.trim()] : (value ?? []))
      if (item !== "") next.append(name, item);
  }
  next.delete("offset");
  return next;
}

/** Search params holding only these filters, the blank ones left out. */
export function searchOf(values: Record<string, FilterValue>): URLSearchParams {
  return withFilters(new URLSearchParams(), values);
}

/** "2026-11-22T10:00:00Z" <-> the value of an <input type="datetime-local"> read as UTC. */
export function isoToInput(iso: string | null): string {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : date.toISOString().slice(0, 16);
}

export function inputToIso(value: string): string {
  if (value === "") return "";
  const date = new Date(`${value}:00Z`);
  return Number.isNaN(date.getTime()) ? "" : date.toISOString().replace(".000Z", "Z");
}

/** The start of a ready-made range ending now. */
export function rangeStart(hours: number, now: Date): string {
  return new Date(now.getTime() - hours * 3_600_000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

export function activeFilterCount(query: RunListQuery): number {
  return [...TEXT_FILTERS, "suite_prefix", "source", "verdict", "since", "until"].filter(
    (name) => query[name as keyof RunListQuery] !== undefined,
  ).length;
}

function nonNegativeInt(text: string | null, fallback: number): number {
  const value = Number(text);
  return text !== null && text !== "" && Number.isInteger(value) && value >= 0 ? value : fallback;
}

export type SortColumn = "started_at" | "suite" | "p99";

/** The order a column's header sets when clicked: its natural order (newest, A to Z,
 * slowest first), or the reverse if the list is in it already. */
export function nextOrder(current: RunOrder, column: SortColumn): RunOrder {
  if (column === "suite") return current === "suite" ? "-suite" : "suite";
  return current === `-${column}` ? column : `-${column}`;
}
