/** The states of jobs and bisections that mean "still going": what the queries poll while they
 * last, and what a page offers to cancel. */

import type { BisectionStatus, JobStatus } from "./types";

export const ACTIVE_STATUSES: readonly JobStatus[] = ["queued", "dispatched", "running"];

/** A job still going: worth polling, and can be cancelled. */
export function isActive(status: JobStatus): boolean {
  return ACTIVE_STATUSES.includes(status);
}

/** A bisection still searching. */
export function isRunning(status: BisectionStatus): boolean {
  return status === "running";
}
