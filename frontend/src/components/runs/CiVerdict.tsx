import type { RunRead } from "../../api/types";
import { VerdictReasons } from "./VerdictReasons";

/** The CI gate's verdict: its reasons, or what a verdict without reasons means. */
export function CiVerdict({ run }: { run: RunRead }) {
  return (
    <>
      <h2 id="ci-verdict">CI verdict</h2>
      {run.verdict_reasons.length > 0 ? (
        <div className="table-scroll">
          <VerdictReasons reasons={run.verdict_reasons} metricInfo={run.metric_info} />
        </div>
      ) : (
        <p className="muted">
          {run.verdict === "pass"
            ? run.gate_evidence.length > 0
              ? "Passed: no SLA rule breached and no regression against the window of its history."
              : `Passed: no SLA rule breached and no regression against run #${String(run.baseline_run_id ?? "")}.`
            : run.verdict === "no-baseline"
              ? "No SLA rule breached; there was no comparable earlier run to compare against."
              : "This run was not judged."}
        </p>
      )}
    </>
  );
}
