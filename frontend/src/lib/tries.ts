/**
 * A try job's run read as a comparison: its series carry `side=base|head` (both commits
 * measured on one host, trials interleaved), its verdict is head against base, and each gated
 * metric's reason says the change, its 95 % interval and the smallest change the job could
 * have seen. It is measured in stages until decided: looks at 1, 2, 4 and 8 times its
 * first stage's trials, all in one run.
 */

import type { JobRead, RunRead, VerdictReason } from "../api/types";
import { compareHref, profilesHref, type Tone } from "./compare";
import { isActive } from "../api/states";
import { isRecord } from "./params";
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

/** The differential flame graph of the run's head against its base (both sides profiled). */
export function tryProfilesHref(runId: number): string {
  return profilesHref({
    baseline: runId,
    candidate: runId,
    baseline_labels: JSON.stringify(TRY_SELECTORS.baseline),
    candidate_labels: JSON.stringify(TRY_SELECTORS.candidate),
  });
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

/** A try job's stages as the API gives them (`JobRead.stages`, free-form JSON there). */
interface Stages {
  /** Trials a side at each look. */
  looks: number[];
  /** Each finished stage: its trials a side and the lab seconds it took. */
  measured: { trials: number; seconds: number }[];
}

/**
 * Where a try job's stages are, for its line in the jobs list: "look 2 of 3 · 10 trials a side
 * measured" while it measures (or waits for) a stage, "3 stages · 40 trials a side · 4.2 min"
 * once it ended; null for a job without stages, or one that ended before a stage came back.
 */
export function describeStages(job: Pick<JobRead, "stages" | "status">): string | null {
  const stages = readStages(job.stages);
  if (stages === null) return null;
  const trials = stages.measured.reduce((sum, stage) => sum + stage.trials, 0);
  if (isActive(job.status)) {
    const look = Math.min(stages.measured.length + 1, stages.looks.length);
    const at = `look ${String(look)} of ${String(stages.looks.length)}`;
    return trials === 0 ? at : `${at} · ${String(trials)} trials a side measured`;
  }
  const count = stages.measured.length;
  if (count === 0) return null;
  const seconds = stages.measured.reduce((sum, stage) => sum + stage.seconds, 0);
  return [
    `${String(count)} ${count === 1 ? "stage" : "stages"}`,
    `${String(trials)} trials a side`,
    `${(seconds / 60).toFixed(1)} min`,
  ].join(" · ");
}

function readStages(value: unknown): Stages | null {
  if (!isRecord(value) || !Array.isArray(value.looks) || !Array.isArray(value.measured))
    return null;
  const looks = value.looks.filter((look): look is number => typeof look === "number");
  const measured = value.measured.flatMap((stage: unknown) =>
    isRecord(stage) && typeof stage.trials === "number" && typeof stage.seconds === "number"
      ? [{ trials: stage.trials, seconds: stage.seconds }]
      : [],
  );
  return looks.length > 0 ? { looks, measured } : null;
}
