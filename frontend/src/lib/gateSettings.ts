/**
 * The CI gate's thresholds as the settings page shows and edits them: the project's default,
 * then rules per suite ("http-order") and per scenario ("http-order/large"), each field left
 * blank keeping the level above's. Fractions are typed in percent.
 */

import type { GateRule, GateSettings, GateSettingsRead } from "../api/types";

export type GateTest = NonNullable<GateRule["test"]>;

/** What the form holds: text as typed, "" for a field the level above decides. */
export interface GateRuleForm {
  /** "" for the project's default, else "suite" or "suite/scenario". */
  scope: string;
  window: string;
  test: GateTest | "";
  /** Percent. */
  falseAlarm: string;
  /** Percent. */
  minEffect: string;
  /** Percent. */
  percentage: string;
  /** Percent. */
  maxErrorRate: string;
}

export const EMPTY_GATE_RULE: GateRuleForm = {
  scope: "",
  window: "",
  test: "",
  falseAlarm: "",
  minEffect: "",
  percentage: "",
  maxErrorRate: "",
};

/** One row of the settings table: where a rule applies and what it sets. */
export interface GateRuleRow {
  scope: string;
  rule: GateRule;
}

const SCOPE = /^[a-z0-9][a-z0-9._-]{0,63}(\/[a-z0-9][a-z0-9._-]{0,63})?$/;

/** The project's default first, then the suites' and scenarios' rules by name. */
export function gateRuleRows(
  settings: Pick<GateSettingsRead, "default" | "suites">,
): GateRuleRow[] {
  return [
    { scope: "", rule: settings.default },
    ...Object.keys(settings.suites)
      .sort()
      .map((scope) => ({ scope, rule: settings.suites[scope]! })),
  ];
}

/** "" -> "project default", "http-order" -> "http-order (every scenario)". */
export function describeScope(scope: string): string {
  if (scope === "") return "project default";
  return scope.includes("/") ? scope.replace("/", " / ") : `${scope} (every scenario)`;
}

/** The thresholds a project's runs get where no suite or scenario rule says otherwise. */
export function effectiveDefault(settings: Pick<GateSettingsRead, "effective_default">): GateRule {
  const found = settings.effective_default;
  const number = (value: unknown) => (typeof value === "number" ? value : null);
  const test = found.test;
  return {
    window: number(found.window),
    test: test === "t" || test === "z" || test === "percentage" ? test : null,
    false_alarm: number(found.false_alarm),
    min_effect: number(found.min_effect),
    percentage: number(found.percentage),
    max_error_rate: number(found.max_error_rate),
  };
}

const TEST_NAMES: Record<GateTest, string> = {
  t: "t (prediction)",
  z: "z-score",
  percentage: "percentage",
};

/** A rule's fields as table cells; null for a field it leaves to the level above. */
export function gateRuleCells(rule: GateRule): {
  window: string | null;
  test: string | null;
  falseAlarm: string | null;
  minEffect: string | null;
  percentage: string | null;
  maxErrorRate: string | null;
} {
  return {
    window: rule.window == null ? null : `${String(rule.window)} runs`,
    test: rule.test == null ? null : TEST_NAMES[rule.test],
    falseAlarm: percent(rule.false_alarm),
    minEffect: percent(rule.min_effect),
    percentage: percent(rule.percentage),
    maxErrorRate: percent(rule.max_error_rate),
  };
}

/** A cell of the settings table: what it says, and whether it is the lab's default (the
 * project default's blanks show what the lab gives). */
export interface GateCell {
  text: string;
  inherited: boolean;
}

/** A row of the settings table: its level, named, its cells in the table's order, and whether
 * it can be removed (the project default: reset, when it sets anything). */
export interface GateTableRow extends GateRuleRow {
  name: string;
  cells: GateCell[];
  removable: boolean;
}

const CELLS = ["window", "test", "falseAlarm", "minEffect", "percentage", "maxErrorRate"] as const;

/** The settings table: a row per level, the project default first (gateRuleRows). */
export function gateTable(
  settings: Pick<GateSettingsRead, "default" | "suites" | "effective_default">,
): GateTableRow[] {
  const lab = gateRuleCells(effectiveDefault(settings));
  return gateRuleRows(settings).map(({ scope, rule }) => {
    const cells = gateRuleCells(rule);
    return {
      scope,
      rule,
      name: describeScope(scope),
      cells: CELLS.map((key): GateCell => {
        const text = cells[key];
        if (text !== null) return { text, inherited: false };
        if (scope === "") return { text: lab[key] ?? "", inherited: true };
        return { text: "—", inherited: false };
      }),
      removable: scope !== "" || !isEmptyGateRule(rule),
    };
  });
}

/** Whether a rule sets nothing (every field left to the level above). */
export function isEmptyGateRule(rule: GateRule): boolean {
  return Object.values(rule).every((value) => value == null);
}

/** A stored rule as form values. */
export function gateRuleToForm(scope: string, rule: GateRule): GateRuleForm {
  const typed = (value: number | null | undefined) =>
    value == null ? "" : String(Number((value * 100).toPrecision(6)));
  return {
    scope,
    window: rule.window == null ? "" : String(rule.window),
    test: rule.test ?? "",
    falseAlarm: typed(rule.false_alarm),
    minEffect: typed(rule.min_effect),
    percentage: typed(rule.percentage),
    maxErrorRate: typed(rule.max_error_rate),
  };
}

/** The rule to store, or an error per field (the API's bounds, checked before sending). */
export function checkGateRule(
  form: GateRuleForm,
): { scope: string; rule: GateRule } | { errors: Partial<Record<keyof GateRuleForm, string>> } {
  const errors: Partial<Record<keyof GateRuleForm, string>> = {};
  const scope = form.scope.trim();
  if (scope !== "" && !SCOPE.test(scope))
    errors.scope = "blank for the project, a suite (http-order) or suite/scenario";
  const window = parse(form.window);
  if (window !== null && !(Number.isInteger(window) && window >= 5 && window <= 500))
    errors.window = "5 to 500 runs";
  const falseAlarm = parse(form.falseAlarm);
  if (falseAlarm !== null && !(falseAlarm >= 0.01 && falseAlarm <= 20))
    errors.falseAlarm = "0.01 to 20 %";
  const minEffect = parse(form.minEffect);
  if (minEffect !== null && !(minEffect >= 0 && minEffect < 100)) errors.minEffect = "0 to 99 %";
  const percentage = parse(form.percentage);
  if (percentage !== null && !(percentage > 0 && percentage < 100))
    errors.percentage = "above 0 and under 100 %";
  const maxErrorRate = parse(form.maxErrorRate);
  if (maxErrorRate !== null && !(maxErrorRate >= 0 && maxErrorRate <= 100))
    errors.maxErrorRate = "0 to 100 %";
  if (Object.keys(errors).length > 0) return { errors };
  const rule: GateRule = {};
  if (window !== null) rule.window = window;
  if (form.test !== "") rule.test = form.test;
  if (falseAlarm !== null) rule.false_alarm = falseAlarm / 100;
  if (minEffect !== null) rule.min_effect = minEffect / 100;
  if (percentage !== null) rule.percentage = percentage / 100;
  if (maxErrorRate !== null) rule.max_error_rate = maxErrorRate / 100;
  return { scope, rule };
}

/** The whole document PUT /gate-settings takes, with one rule set (or replaced). */
export function withGateRule(
  settings: Pick<GateSettingsRead, "default" | "suites">,
  scope: string,
  rule: GateRule,
): GateSettings {
  if (scope === "") return { default: rule, suites: { ...settings.suites } };
  return { default: settings.default, suites: { ...settings.suites, [scope]: rule } };
}

/** The whole document without a suite's or scenario's rule (the project default: emptied). */
export function withoutGateRule(
  settings: Pick<GateSettingsRead, "default" | "suites">,
  scope: string,
): GateSettings {
  if (scope === "") return { default: {}, suites: { ...settings.suites } };
  const suites = { ...settings.suites };
  delete suites[scope];
  return { default: settings.default, suites };
}

/** NaN for text that is no number, null for blank. */
function parse(text: string): number | null {
  const trimmed = text.trim();
  return trimmed === "" ? null : Number(trimmed);
}

function percent(value: number | null | undefined): string | null {
  return value == null ? null : `${String(Number((value * 100).toPrecision(6)))}%`;
}
