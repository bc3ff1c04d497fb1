/** What several tests build from: API documents as the tests' examples have them. */

import type { SlaRuleCreate, SlaRuleRead } from "../api/types";

/** "P99 over 2 ms" on http-order, every scenario and series, as the API creates it. */
export const SLA_RULE: SlaRuleCreate = {
  name: "P99 over 2 ms",
  suite: "http-order",
  scenario: null,
  series_selector: {},
  metric: "p99",
  op: ">",
  threshold: 2,
  unit: "ms",
  severity: "warning",
  kind: "static",
  enabled: true,
  channel_ids: null,
};

/** That rule as the API lists it, with `overrides`. */
export function slaRule(overrides: Partial<SlaRuleRead>): SlaRuleRead {
  return { id: 1, ...SLA_RULE, created_at: "2026-11-01T00:00:00Z", ...overrides };
}
