/** The SLA rule form: what was typed, checked, as the API's SlaRuleCreate. */

import type { SlaRuleCreate } from "../api/types";

export interface RuleForm {
  name: string;
  suite: string;
  scenario: string;
  selector: string;
  metric: string;
  op: SlaRuleCreate["op"];
  threshold: string;
  unit: string;
  severity: NonNullable<SlaRuleCreate["severity"]>;
  kind: NonNullable<SlaRuleCreate["kind"]>;
  channelIds: number[];
}

export const EMPTY_RULE: RuleForm = {
  name: "",
  suite: "",
  scenario: "",
  selector: "",
  metric: "p99",
  op: ">",
  threshold: "",
  unit: "ms",
  severity: "warning",
  kind: "static",
  channelIds: [],
};

const SLUG = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const METRIC = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/** A template (or a stored rule) as form values. */
export function ruleToForm(rule: SlaRuleCreate): RuleForm {
  return {
    name: rule.name,
    suite: rule.suite,
    scenario: rule.scenario ?? "",
    selector: formatSelector(rule.series_selector ?? {}),
    metric: rule.metric,
    op: rule.op,
    threshold: String(rule.threshold),
    unit: rule.unit ?? "",
    severity: rule.severity ?? "warning",
    kind: rule.kind ?? "static",
    channelIds: rule.channel_ids ?? [],
  };
}

/** "client=rust, pattern=req-rep" -> {client: "rust", pattern: "req-rep"}. */
export function parseSelector(
  text: string,
): { selector: Record<string, string> } | { error: string } {
  const selector: Record<string, string> = {};
  for (const part of text
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean)) {
    const at = part.indexOf("=");
    const key = at < 0 ? "" : part.slice(0, at).trim();
    const value = at < 0 ? "" : part.slice(at + 1).trim();
    if (!METRIC.test(key) || value === "") return { error: `"${part}" is not label=value` };
    selector[key] = value;
  }
  return { selector };
}

export function formatSelector(selector: Record<string, string>): string {
  return Object.entries(selector)
    .map(([key, value]) => `${key}=${value}`)
    .join(", ");
}

/** The rule to create, or an error per field (keys are RuleForm's). */
export function checkRule(
  form: RuleForm,
): { rule: SlaRuleCreate } | { errors: Partial<Record<keyof RuleForm, string>> } {
  const errors: Partial<Record<keyof RuleForm, string>> = {};
  const name = form.name.trim();
  if (name === "" || name.length > 200) errors.name = "a name of 1 to 200 characters";
  if (!SLUG.test(form.suite.trim())) errors.suite = "a suite id, e.g. http-order";
  if (form.scenario.trim() !== "" && !SLUG.test(form.scenario.trim()))
    errors.scenario = "a scenario id, or blank for all";
  if (!METRIC.test(form.metric.trim())) errors.metric = "a metric name, e.g. p99 or throughput";
  const threshold = Number(form.threshold);
  if (form.threshold.trim() === "" || !Number.isFinite(threshold)) errors.threshold = "a number";
  const unit = form.unit.trim();
  if (unit.length > 16) errors.unit = "at most 16 characters";
  if (form.kind === "relative" && unit !== "" && unit !== "%")
    errors.unit = "a relative rule is in percent (%)";
  const selector = parseSelector(form.selector);
  if ("error" in selector) errors.selector = selector.error;
  if (Object.keys(errors).length > 0 || "error" in selector) return { errors };
  return {
    rule: {
      name,
      suite: form.suite.trim(),
      scenario: form.scenario.trim() || null,
      series_selector: selector.selector,
      metric: form.metric.trim(),
      op: form.op,
      threshold,
      unit: form.kind === "relative" ? "%" : unit,
      severity: form.severity,
      kind: form.kind,
      enabled: true,
      channel_ids: form.channelIds.length > 0 ? form.channelIds : null,
    },
  };
}
