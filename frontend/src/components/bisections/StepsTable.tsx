import { Link } from "react-router";

import type { BisectionStep } from "../../api/types";
import { formatChange, jobHref, STEP_KINDS, stepOutcome } from "../../lib/bisections";
import { shortCommit } from "../../lib/format";
import { Badge } from "../common/Badge";
import { RunLink } from "../common/RunLink";
import { num, TableHead } from "../common/TableHead";
import { CommitLink } from "../repos/CommitLink";

/**
 * A bisection's steps in order, each a try job of two commits of the range: what it measured,
 * the outcome on the bisection's metric, head against base with its 95 % interval, its lab
 * minutes, its job and run, and what it said. The last step of a running bisection is still
 * being measured. Its commits link to the repository's site when it has a commit URL.
 */
export function StepsTable({
  steps,
  running,
  commitUrl = null,
}: {
  steps: BisectionStep[];
  running: boolean;
  commitUrl?: string | null;
}) {
  return (
    <table className="table bisect-steps">
      <TableHead
        columns={["#", "Kind", "Base → head", "Outcome", num("Change (95 % interval)"),
          num("Minutes"), "Job", "Run", "What it said"]}
      />
      <tbody>
        {steps.map((step, index) => {
          const outcome = stepOutcome(step.outcome, running && index === steps.length - 1);
          return (
            <tr
              key={step.job_id}
              data-step={index + 1}
              data-kind={step.kind}
              data-outcome={step.outcome ?? ""}
            >
              <td>{index + 1}</td>
              <td className="nowrap">{STEP_KINDS[step.kind]}</td>
              <td className="mono nowrap">
                <CommitLink sha={step.base} commitUrl={commitUrl}>
                  <span title={step.base}>{shortCommit(step.base)}</span>
                </CommitLink>{" "}
                →{" "}
                <CommitLink sha={step.head} commitUrl={commitUrl}>
                  <span title={step.head}>{shortCommit(step.head)}</span>
                </CommitLink>
              </td>
              <td>
                <Badge tone={outcome.tone}>{outcome.text}</Badge>
              </td>
              <td className="num nowrap" data-column="change">
                {formatChange(step.change, step.interval)}
              </td>
              <td className="num">{step.minutes != null ? step.minutes.toFixed(1) : "—"}</td>
              <td>
                <Link to={jobHref(step.job_id)}>Job #{step.job_id}</Link>
              </td>
              <td>
                {step.run_id != null ? (
                  <RunLink id={step.run_id} text="Run #" />
                ) : (
                  "—"
                )}
              </td>
              <td className="wrap small">{step.said ?? ""}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
