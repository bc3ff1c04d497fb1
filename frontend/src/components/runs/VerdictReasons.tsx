import { Link } from "react-router";

import type { MetricInfo, VerdictReason } from "../../api/types";
import { formatLabels } from "../../lib/format";
import { metricLabel } from "../../lib/vocabulary";
import { Badge } from "../common/Badge";

const REASON_NAMES: Record<VerdictReason["kind"], string> = {
  regression: "regression",
  "suspected-regression": "suspected regression",
  "too-few-trials": "too few trials",
  sla: "SLA",
  "not-compared": "not compared",
  errors: "errors",
  failures: "failures",
};

const FAILING: ReadonlySet<VerdictReason["kind"]> = new Set(["regression", "errors"]);

/** Why a run failed its CI gate (SLA breaches, regressions against the baseline, failed
 * operations past the project's rate), and what the gate could not compare. */
export function VerdictReasons({
  reasons,
  metricInfo,
}: {
  reasons: VerdictReason[];
  metricInfo: Record<string, MetricInfo>;
}) {
  return (
    <table className="table reasons-table">
      <thead>
        <tr>
          <th scope="col">Kind</th>
          <th scope="col">Series</th>
          <th scope="col">Metric</th>
          <th scope="col">What happened</th>
        </tr>
      </thead>
      <tbody>
        {reasons.map((reason, index) => (
          <tr key={index}>
            <td>
              <Badge
                tone={
                  reason.severity === "critical" || FAILING.has(reason.kind) ? "bad" : "unknown"
                }
              >
                {REASON_NAMES[reason.kind]}
                {reason.severity ? ` · ${reason.severity}` : ""}
              </Badge>
            </td>
            <td>{formatLabels(reason.series)}</td>
            <td>{reason.metric ? metricLabel(reason.metric, metricInfo[reason.metric]) : "—"}</td>
            <td className="wrap">
              {reason.message}
              {reason.rule_id !== null && (
                <>
                  {" "}
                  <Link to="/settings#sla-rules" className="small">
                    rule #{reason.rule_id}
                  </Link>
                </>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
