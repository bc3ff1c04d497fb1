/**
 * Addresses of the run exports (files the browser downloads, so plain links rather than client
 * calls). The paths are checked against the generated API schema, so a renamed route fails
 * the type check.
 */
import type { paths } from "../api/schema";

const RUN_CSV = "/api/v1/runs/{run_id}/summary.csv" satisfies keyof paths;
const TRIAL_HLOG =
  "/api/v1/runs/{run_id}/series/{series_id}/trials/{index}/hlog" satisfies keyof paths;
const PROFILE = "/api/v1/runs/{run_id}/profiles/{profile_id}" satisfies keyof paths;

/** The run's summary as CSV: each series merged and per trial. */
export function runCsvUrl(runId: number): string {
  return RUN_CSV.replace("{run_id}", String(runId));
}

/** One trial's latency as an HdrHistogram log (.hlog). */
export function trialHlogUrl(runId: number, seriesId: number, index: number): string {
  return TRIAL_HLOG.replace("{run_id}", String(runId))
    .replace("{series_id}", String(seriesId))
    .replace("{index}", String(index));
}

/** One CPU profile as folded stacks (`frame;frame count`), for flamegraph.pl and friends. */
export function profileFoldedUrl(runId: number, profileId: number): string {
  const path = PROFILE.replace("{run_id}", String(runId)).replace(
    "{profile_id}",
    String(profileId),
  );
  return `${path}?${new URLSearchParams({ format: "folded" }).toString()}`;
}
