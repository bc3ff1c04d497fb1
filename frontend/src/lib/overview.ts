/** What the overview page summarises: the newest run of each suite, hosts up and down. */

import type { HostRead, RunSummary } from "../api/types";

/** The first run of each suite in a newest-first list, suites by name. */
export function latestPerSuite(runs: RunSummary[]): RunSummary[] {
  const latest = new Map<string, RunSummary>();
  for (const run of runs) if (!latest.has(run.suite)) latest.set(run.suite, run);
  return [...latest.values()].sort((a, b) => a.suite.localeCompare(b.suite));
}

export function hostCounts(hosts: Pick<HostRead, "online">[]): { online: number; offline: number } {
  const online = hosts.filter((host) => host.online).length;
  return { online, offline: hosts.length - online };
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
