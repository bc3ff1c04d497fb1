import { describe, expect, it } from "vitest";

import type { GateSettingsRead } from "../api/types";
import {
  EMPTY_GATE_RULE,
  checkGateRule,
  describeScope,
  effectiveDefault,
  gateRuleCells,
  gateRuleRows,
  gateRuleToForm,
  gateTable,
  isEmptyGateRule,
  withGateRule,
  withoutGateRule,
} from "./gateSettings";

const settings: GateSettingsRead = {
  project: "default",
  default: { false_alarm: 0.005 },
  suites: {
    "http-order/large": { window: 60, test: "percentage", percentage: 0.15, max_error_rate: 0.05 },
    "http-order": { min_effect: 0.03 },
  },
  effective_default: {
    window: 30,
    test: "t",
    false_alarm: 0.005,
    min_effect: 0.05,
    percentage: 0.1,
    max_error_rate: 0.01,
  },
};

describe("gate settings", () => {
  it("lists the project default, then suites and scenarios by name", () => {
    expect(gateRuleRows(settings).map((row) => describeScope(row.scope))).toEqual([
      "project default",
      "http-order (every scenario)",
      "http-order / large",
    ]);
  });

  it("shows fractions in percent and what a rule leaves to the level above as null", () => {
    expect(gateRuleCells(settings.suites["http-order/large"]!)).toEqual({
      window: "60 runs",
      test: "percentage",
      falseAlarm: null,
      minEffect: null,
      percentage: "15%",
      maxErrorRate: "5%",
    });
    expect(gateRuleCells(effectiveDefault(settings))).toEqual({
      window: "30 runs",
      test: "t (prediction)",
      falseAlarm: "0.5%",
      minEffect: "5%",
      percentage: "10%",
      maxErrorRate: "1%",
    });
  });

  it("tables each level, the project default's blanks showing the lab's default", () => {
    const [projectDefault, suite, scenario] = gateTable(settings);
    expect(projectDefault).toMatchObject({ scope: "", name: "project default", removable: true });
    expect(projectDefault!.cells[0]).toEqual({ text: "30 runs", inherited: true });
    expect(projectDefault!.cells[2]).toEqual({ text: "0.5%", inherited: false });
    expect(suite!.cells.map((cell) => cell.text).join(" ")).toBe("— — — 3% — —");
    expect(scenario).toMatchObject({ name: "http-order / large", removable: true });
    expect(gateTable({ ...settings, default: {} })[0]!.removable).toBe(false);
  });

  it("checks a rule typed in percent and stores fractions", () => {
    expect(
      checkGateRule({
        ...EMPTY_GATE_RULE,
        scope: " http-order/medium ",
        window: "20",
        test: "z",
        falseAlarm: "0.5",
        minEffect: "7",
      }),
    ).toEqual({
      scope: "http-order/medium",
      rule: { window: 20, test: "z", false_alarm: 0.005, min_effect: 0.07 },
    });
    expect(checkGateRule(EMPTY_GATE_RULE)).toEqual({ scope: "", rule: {} });
    expect(
      checkGateRule({
        scope: "HTTP order",
        window: "4",
        test: "",
        falseAlarm: "25",
        minEffect: "100",
        percentage: "x",
        maxErrorRate: "101",
      }),
    ).toEqual({
      errors: {
        scope: "blank for the project, a suite (http-order) or suite/scenario",
        window: "5 to 500 runs",
        falseAlarm: "0.01 to 20 %",
        minEffect: "0 to 99 %",
        percentage: "above 0 and under 100 %",
        maxErrorRate: "0 to 100 %",
      },
    });
  });

  it("round-trips a stored rule through the form", () => {
    const rule = settings.suites["http-order/large"]!;
    const form = gateRuleToForm("http-order/large", rule);
    expect(form.percentage).toBe("15");
    expect(checkGateRule(form)).toEqual({ scope: "http-order/large", rule });
  });

  it("puts and removes one rule of the whole document", () => {
    expect(withGateRule(settings, "", { window: 40 })).toEqual({
      default: { window: 40 },
      suites: settings.suites,
    });
    expect(withGateRule(settings, "zmq", { test: "z" }).suites.zmq).toEqual({ test: "z" });
    expect(withoutGateRule(settings, "http-order")).toEqual({
      default: settings.default,
      suites: { "http-order/large": settings.suites["http-order/large"] },
    });
    expect(withoutGateRule(settings, "").default).toEqual({});
  });

  it("knows a rule that sets nothing", () => {
    expect(isEmptyGateRule({})).toBe(true);
    expect(isEmptyGateRule({ window: null, test: null })).toBe(true);
    expect(isEmptyGateRule({ window: null, min_effect: 0 })).toBe(false);
  });
});
