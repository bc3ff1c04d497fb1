import { Link } from "react-router";

import { useRun } from "../../api/runs";
import { RunVerdictBadge } from "../common/VerdictBadge";

/** The CI gate's verdict on the candidate, which judged it against its history's window. */
export function GateVerdict({ runId }: { runId: number }) {
  const run = useRun(runId);
  if (run.data?.verdict == null) return null;
  const reasons = run.data.verdict_reasons.length;
  return (
    <p className="gate-verdict" aria-label="CI gate verdict">
      CI gate on run #{runId}: <RunVerdictBadge verdict={run.data.verdict} />{" "}
      {reasons > 0 && (
        <Link to={`/runs/${String(runId)}#ci-verdict`}>
          {reasons} reason{reasons === 1 ? "" : "s"}
        </Link>
      )}{" "}
      <span className="muted small">
        (against its history&apos;s window, or its pinned baseline; this page compares two runs)
      </span>
    </p>
  );
}
