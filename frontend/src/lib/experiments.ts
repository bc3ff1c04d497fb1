/**
 * Experiments as the dashboard shows them: each expectation's outcome in words and colour, its
 * value (a ratio as x0.37, a bound in the metric's unit) with its interval, the point of an
 * axis it was judged at, two runs of one experiment side by side, and a document typed as JSON
 * checked before it is sent.
 */

import type {
  ExpectationJudged,
  ExpectationOutcome,
  ExperimentDocument,
  ExperimentRunRead,
} from "../api/types";
import type { Tone } from "./compare";
import { formatValue } from "./units";

export const OUTCOME: Readonly<Record<ExpectationOutcome, { text: string; tone: Tone }>> = {
  holds: { text: "holds", tone: "good" },
  "does-not-hold": { text: "does not hold", tone: "bad" },
  "not-decided": { text: "not decided", tone: "unknown" },
};

/** An experiment's page; with a run (and another beside it). */
export function experimentHref(name: string, run?: number, against?: number): string {
  const query = new URLSearchParams();
  if (run !== undefined) query.set("run", String(run));
  if (against !== undefined) query.set("against", String(against));
  const search = query.toString();
  return `/experiments/${encodeURIComponent(name)}${search ? `?${search}` : ""}`;
}

/** An expectation's export as Markdown (a file the browser downloads). */
export function markdownHref(name: string, run: number): string {
  return `/api/v1/experiments/${encodeURIComponent(name)}/runs/${String(run)}/markdown`;
}

/** "x0.375" for a ratio (no unit), the metric's unit otherwise. */
export function formatJudged(value: number | null | undefined, unit: string | null): string {
  if (value == null) return "–";
  return unit === null ? `x${value.toPrecision(3)}` : formatValue(value, unit);
}

/** "x0.36 – x0.39": the value's 95 % interval. */
export function formatJudgedInterval(judged: ExpectationJudged): string {
  if (!judged.interval || judged.interval.length !== 2) return "–";
  const [low, high] = judged.interval as [number, number];
  return `${formatJudged(low, judged.unit)} – ${formatJudged(high, judged.unit)}`;
}

/** "connections = 10", or "–" for an expectation without an axis. */
export function formatPoint(point: Record<string, number> | null): string {
  if (!point) return "–";
  return Object.entries(point)
    .map(([name, value]) => `${name} = ${String(value)}`)
    .join(", ");
}

/** How many expectations of a run hold, do not, and are not decided. */
export function outcomeCounts(run: ExperimentRunRead): Record<ExpectationOutcome, number> {
  const counts: Record<ExpectationOutcome, number> = {
    holds: 0,
    "does-not-hold": 0,
    "not-decided": 0,
  };
  for (const judged of run.judgements ?? []) counts[judged.outcome] += 1;
  return counts;
}

export interface JudgedPair {
  key: string;
  expectation: string;
  point: Record<string, number> | null;
  first: ExpectationJudged | null;
  second: ExpectationJudged | null;
  /** Judged differently by the two runs (one of them missing counts as different). */
  changed: boolean;
}

/** Two runs of one experiment side by side: each expectation at each point, in the order the
 * first run judged them, then those only the second has. */
export function pairJudgements(first: ExperimentRunRead, second: ExperimentRunRead): JudgedPair[] {
  const key = (judged: ExpectationJudged) =>
    `${judged.expectation}@${formatPoint(judged.point ?? null)}`;
  const pairs = new Map<string, JudgedPair>();
  for (const [side, run] of [
    ["first", first],
    ["second", second],
  ] as const) {
    for (const judged of run.judgements ?? []) {
      const found = pairs.get(key(judged)) ?? {
        key: key(judged),
        expectation: judged.expectation,
        point: judged.point ?? null,
        first: null,
        second: null,
        changed: false,
      };
      found[side] = judged;
      pairs.set(found.key, found);
    }
  }
  return [...pairs.values()].map((pair) => ({
    ...pair,
    changed: pair.first?.outcome !== pair.second?.outcome,
  }));
}

/** A document typed as JSON: the object to send, or why it is not one. */
export function parseDocument(
  text: string,
): { document: ExperimentDocument; error: null } | { document: null; error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { document: null, error: `Not JSON: ${(error as Error).message}` };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return { document: null, error: "An experiment is a JSON object." };
  }
  const missing = ["name", "title", "jobs"].filter((field) => !(field in parsed));
  if (missing.length) {
    return { document: null, error: `It needs ${missing.join(", ")}.` };
  }
  return { document: parsed as ExperimentDocument, error: null };
}
