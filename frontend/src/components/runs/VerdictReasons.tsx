import { Link } from "react-router";

import type { MetricInfo, VerdictReason } from "../../api/types";
import { formatLabels } from "../../lib/format";
import { formatShare } from "../../lib/trends";
import { formatInterval, OUTCOME_TONE, reasonChange } from "../../lib/tries";
import { metricLabel } from "../../lib/vocabulary";
import { Badge } from "../common/Badge";
import { num, TableHead } from "../common/TableHead";

const REASON_NAMES: Record<VerdictReason["kind"], string> = {
  regression: "regression",
  "suspected-regression": "suspected regression",
  "too-few-trials": "too few trials",
  sla: "SLA",
  "not-compared": "not compared",
  errors: "errors",
  failures: "failures",
  try: "head vs base",
  stages: "stages",
};

const FAILING: ReadonlySet<VerdictReason["kind"]> = new Set(["regression", "errors"]);

/** Why a run failed its CI gate (SLA breaches, regressions against the baseline, failed
 * operations past the project's rate), and what the gate could not compare. A try job's
 * reasons (head against base) add what each metric did, its change with the 95 % interval,
 * and the smallest change the job could have seen. */
export function VerdictReasons({
  reasons,
  metricInfo,
}: {
  reasons: VerdictReason[];
  metricInfo: Record<string, MetricInfo>;
}) {
  const tried = reasons.some((reason) => reason.outcome != null);
  return (
    <table className="table reasons-table">
      <TableHead
        columns={[
          "Kind",
          "Series",
          "Metric",
          ...(tried ? ["Outcome", num("Change"), "95 % interval", "Could see"] : []),
          "What happened",
        ]}
      />
      <tbody>
        {reasons.map((reason, index) => (
          <tr key={index} data-kind={reason.kind} data-metric={reason.metric || undefined}>
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
            {tried && <TriedCells reason={reason} />}
            <td className="wrap">
              {reason.message}
              {reason.rule_id != null && (
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

/** Head against base on one metric: its outcome, change, interval and the job's resolution. */
function TriedCells({ reason }: { reason: VerdictReason }) {
  return (
    <>
      <td data-column="outcome">
        {reason.outcome ? (
          <Badge tone={OUTCOME_TONE[reason.outcome]}>{reason.outcome}</Badge>
        ) : (
          "—"
        )}
      </td>
      <td className="num nowrap" data-column="change">
        {reasonChange(reason) ?? "—"}
      </td>
      <td className="nowrap" data-column="interval">
        {formatInterval(reason.interval) ?? "—"}
      </td>
      <td className="nowrap" data-column="detectable">
        {reason.detectable != null ? formatShare(reason.detectable) : "—"}
      </td>
    </>
  );
}
