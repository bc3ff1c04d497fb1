/** How an alert reads in the list: its tone, the numbers behind it, and where it leads. */

import type { AlertRead } from "../api/types";
import type { Tone } from "./compare";
import { compareHref, confirmationProfilesHref } from "./compare";
import { formatValue } from "./units";

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
export function alertLink(
  alert: Pick<AlertRead, "run_id" | "baseline_run_id">,
): { href: string; text: string } | null {
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
): { href: string; text: string } | null {
  if (alert.confirmation_run_id === null) return null;
  return { href: confirmationProfilesHref(alert.confirmation_run_id), text: "CPU profiles" };
}
