import { Link } from "react-router";

import type { RunRead } from "../../api/types";
import { RunVerdictBadge } from "../common/VerdictBadge";

/** The CI gate's verdict on the candidate, which judged it against its history's window. */
export function GateVerdict({ run }: { run: RunRead }) {
  if (run.verdict == null) return null;
  const reasons = run.verdict_reasons.length;
  return (
    <p className="gate-verdict" aria-label="CI gate verdict">
      CI gate on run #{run.id}: <RunVerdictBadge verdict={run.verdict} />{" "}
      {reasons > 0 && (
        <Link to={`/runs/${String(run.id)}#ci-verdict`}>
          {reasons} reason{reasons === 1 ? "" : "s"}
        </Link>
      )}{" "}
      <span className="muted small">
        (against its history&apos;s window, or its pinned baseline; this page compares two runs)
      </span>
    </p>
  );
}
