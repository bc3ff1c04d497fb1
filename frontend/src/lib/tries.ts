/**
 * A try job's run read as a comparison: its series carry `side=base|head` (both commits
 * measured on one host, trials interleaved), its verdict is head against base, and each gated
 * metric's reason says the change, its 95 % interval and the smallest change the job could
 * have seen.
 */

import type { RunRead, VerdictReason } from "../api/types";
import { compareHref, type Tone } from "./compare";
import { formatDeltaPct } from "./units";

/** The label that tells a try job's two commits apart. */
export const SIDE = "side";

/** The selectors of a try run's two sides, as the compare page takes them. */
export const TRY_SELECTORS = {
  baseline: { [SIDE]: "base" },
  candidate: { [SIDE]: "head" },
} as const;

/** A run of a try job: its series are the base's and the head's. */
export function isTryRun(run: Pick<RunRead, "series">): boolean {
  return run.series.some((series) => SIDE in series.labels);
}

/** The run's head compared with its base, series by series, on the compare page. */
export function tryCompareHref(runId: number): string {
  return compareHref(runId, runId, TRY_SELECTORS.baseline, TRY_SELECTORS.candidate);
}

export type Outcome = NonNullable<VerdictReason["outcome"]>;

/** How an outcome reads: a regression is bad news, an untested change not known. */
export const OUTCOME_TONE: Readonly<Record<Outcome, Tone>> = {
  regressed: "bad",
  improved: "good",
  unchanged: "neutral",
  untested: "unknown",
  suspected: "unknown",
};

/** Head against base: "+6.1%" (a metric's relative change), or null without both values. */
export function reasonChange(reason: Pick<VerdictReason, "baseline" | "candidate">): string | null {
  const { baseline, candidate } = reason;
  if (baseline == null || candidate == null || baseline === 0) return null;
  return formatDeltaPct(100 * (candidate / baseline - 1));
}

/** A 95 % interval of the change given as fractions: "+3.2% to +8.9%"; null when none. */
export function formatInterval(interval: readonly number[] | null | undefined): string | null {
  if (!interval || interval.length !== 2) return null;
  const [low, high] = interval as [number, number];
  return `${formatDeltaPct(100 * low)} to ${formatDeltaPct(100 * high)}`;
}
