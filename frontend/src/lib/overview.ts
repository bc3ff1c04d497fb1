/** What the overview page summarises: hosts up and down, verdicts in words. */

import type { HostRead, RunSummary } from "../api/types";

export function hostCounts(hosts: Pick<HostRead, "online">[]): { online: number; offline: number } {
  const online = hosts.filter((host) => host.online).length;
  return { online, offline: hosts.length - online };
}

/** The tags the hosts have, each once, in order: what a job's host tags may select. */
export function hostTags(hosts: Pick<HostRead, "tags">[]): string[] {
  return [...new Set(hosts.flatMap((host) => host.tags))].sort();
}

/** The words and tone of a run's CI verdict; a run without one was not judged. */
export function verdictLabel(verdict: RunSummary["verdict"]): {
  text: string;
  tone: "good" | "bad" | "unknown";
} {
  switch (verdict) {
    case "pass":
      return { text: "pass", tone: "good" };
    case "fail":
      return { text: "fail", tone: "bad" };
    case "inconclusive":
      return { text: "inconclusive", tone: "unknown" };
    case "no-baseline":
      return { text: "no baseline", tone: "unknown" };
    default:
      return { text: "not judged", tone: "unknown" };
  }
}
