/**
 * How an alert reads in the list: its tone, the numbers behind it, where it leads, the commit
 * that groups it with the others that commit caused, and what a triage action applies to.
 */

import type { AlertRead, Assignee } from "../api/types";
import type { Tone } from "./compare";
import { compareHref, confirmationProfilesHref } from "./compare";
import { trendHref } from "./trends";
import { formatValue } from "./units";

export interface AlertHref {
  href: string;
  text: string;
}

export type TriageAction = "acknowledge" | "resolve";

export const ALERT_STATES = ["open", "acknowledged", "resolved"] as const;
export const SEVERITIES = ["warning", "critical"] as const;

export function stateTone(state: AlertRead["state"]): Tone | "active" {
  return state === "open" ? "bad" : state === "acknowledged" ? "active" : "good";
}

export function severityTone(severity: AlertRead["severity"]): Tone {
  return severity === "critical" ? "bad" : "unknown";
}

/**
 * "650 µs (baseline 500 µs)", or "650 µs (threshold 2 ms)": the value in the alert's unit; an
 * SLA threshold is stored in its rule's unit, which the caller knows from the rule (if any).
 */
export function alertNumbers(
  alert: Pick<AlertRead, "value" | "threshold" | "baseline_value" | "unit">,
  thresholdUnit?: string,
): string {
  if (alert.value === null) return "—";
  const value = formatValue(alert.value, alert.unit);
  if (alert.baseline_value !== null)
    return `${value} (baseline ${formatValue(alert.baseline_value, alert.unit)})`;
  if (alert.threshold !== null && thresholdUnit !== undefined) {
    return `${value} (threshold ${formatValue(alert.threshold, thresholdUnit)})`;
  }
  return value;
}

/** The comparison behind an alert when it has a baseline, else its run. */
export function alertLink(alert: Pick<AlertRead, "run_id" | "baseline_run_id">): AlertHref | null {
  if (alert.run_id !== null && alert.baseline_run_id !== null) {
    return { href: compareHref(alert.baseline_run_id, alert.run_id), text: "Comparison" };
  }
  if (alert.run_id !== null)
    return { href: `/runs/${String(alert.run_id)}`, text: `Run #${String(alert.run_id)}` };
  return null;
}

/**
 * A confirmed regression's CPU profiles: the confirmation run measured both versions, so its
 * differential flame graphs show where the candidate spends its time differently.
 */
export function alertProfilesLink(
  alert: Pick<AlertRead, "confirmation_run_id">,
): AlertHref | null {
  if (alert.confirmation_run_id === null) return null;
  return { href: confirmationProfilesHref(alert.confirmation_run_id), text: "CPU profiles" };
}

/** An alert's series labels as the trends page names a series (every value a string). */
export function seriesLabels(alert: Pick<AlertRead, "series_labels">): Record<string, string> {
  return Object.fromEntries(
    Object.entries(alert.series_labels).map(([key, value]) => [key, String(value)]),
  );
}

/**
 * Everywhere an alert leads: the run it was last seen in, the comparison with its baseline,
 * and its metric's trend for its series, drawn around that run.
 */
export function alertLinks(
  alert: Pick<
    AlertRead,
    "run_id" | "baseline_run_id" | "suite" | "scenario" | "metric" | "series_labels"
  >,
): AlertHref[] {
  const links: AlertHref[] = [];
  if (alert.run_id !== null)
    links.push({ href: `/runs/${String(alert.run_id)}`, text: `Run #${String(alert.run_id)}` });
  if (alert.run_id !== null && alert.baseline_run_id !== null)
    links.push({ href: compareHref(alert.baseline_run_id, alert.run_id), text: "Comparison" });
  const trend = trendHref({
    suite: alert.suite,
    scenario: alert.scenario,
    metric: alert.metric,
    series: [seriesLabels(alert)],
    runId: alert.run_id,
  });
  links.push({ href: trend, text: "Trend" });
  return links;
}

/** The alerts one commit caused, as the list shows them under one header. */
export interface CommitGroup<A> {
  /** null: alerts whose run named no commit (or is gone). */
  commit: string | null;
  branches: string[];
  alerts: A[];
}

/** Alerts grouped by their run's commit, each group where its newest alert stands. */
export function groupByCommit<A extends Pick<AlertRead, "commit" | "branch">>(
  alerts: A[],
): CommitGroup<A>[] {
  const groups = new Map<string | null, CommitGroup<A>>();
  for (const alert of alerts) {
    const group = groups.get(alert.commit) ?? { commit: alert.commit, branches: [], alerts: [] };
    groups.set(alert.commit, group);
    group.alerts.push(alert);
    if (alert.branch !== null && !group.branches.includes(alert.branch))
      group.branches.push(alert.branch);
  }
  return [...groups.values()];
}

/** The ids among `alerts` that an action applies to: open ones are acknowledged, any not yet
 * resolved can be resolved. */
export function actionable(alerts: Pick<AlertRead, "id" | "state">[], action: TriageAction) {
  const applies = (state: AlertRead["state"]) =>
    action === "acknowledge" ? state === "open" : state !== "resolved";
  return alerts.filter((alert) => applies(alert.state)).map((alert) => alert.id);
}

/** A commit as the list shows it: short enough to read, like git's abbreviations. */
export function shortCommit(commit: string): string {
  return /^[0-9a-f]{13,}$/i.test(commit) ? commit.slice(0, 12) : commit;
}

/** A user as the list names them: their name, else their email; someone no longer among the
 * project's users by their id. */
export function assigneeName(
  assignees: Pick<Assignee, "id" | "email" | "name">[],
  userId: number,
): string {
  const user = assignees.find((item) => item.id === userId);
  return user ? (user.name ?? user.email) : `user #${String(userId)}`;
}
