import { Link } from "react-router";

import type { ExperimentRunRead } from "../../api/types";
import {
  formatJudged,
  formatJudgedInterval,
  formatPoint,
  markdownHref,
  OUTCOME,
} from "../../lib/experiments";
import { formatValue } from "../../lib/units";
import { Badge } from "../common/Badge";
import { RunLink } from "../common/RunLink";
import { TableHead } from "../common/TableHead";

const JUDGEMENT_COLUMNS = ["Expectation", "At", "Judged", "Value", "95 % interval",
  "Decides from", "Why"];
const FIGURE_COLUMNS = ["Series", "Metric", "Reference", "Source", "Lab", "Lab / reference"];

/**
 * One run of an experiment: its jobs (each a link to its run), then, once they have ended,
 * every expectation as the lab judged it with its interval and why, and the lab's figures
 * beside the reference's; its export as Markdown.
 */
export function RunJudgements({ name, run }: { name: string; run: ExperimentRunRead }) {
  return (
    <div className="panel" data-experiment-run={run.id} data-status={run.status}>
      <h2>
        Run #{run.id} <span className="muted">(version {run.version})</span>
      </h2>
      <p>
        {Object.entries(run.jobs).map(([job, state], index) => (
          <span key={job}>
            {index > 0 && ", "}
            {job}:{" "}
            {state.run_id !== null && state.run_id !== undefined ? (
              <RunLink id={state.run_id} text="run #" />
            ) : (
              <Link to={`/jobs?job=${String(state.job_id)}`}>
                job #{state.job_id} ({state.status})
              </Link>
            )}
          </span>
        ))}
      </p>
      {run.message && <p className="field-error">This run did not finish: {run.message}</p>}
      {run.status === "running" && (
        <p className="muted">Its jobs are running; the lab judges it once they have all ended.</p>
      )}
      {run.judgements && (
        <div className="table-scroll">
          <table className="table judgements-table">
            <TableHead columns={JUDGEMENT_COLUMNS} />
            <tbody>
              {run.judgements.map((judged) => (
                <tr
                  key={`${judged.expectation}@${formatPoint(judged.point ?? null)}`}
                  data-outcome={judged.outcome}
                >
                  <th scope="row" className="mono">
                    {judged.expectation}
                  </th>
                  <td className="nowrap">{formatPoint(judged.point ?? null)}</td>
                  <td>
                    <Badge tone={OUTCOME[judged.outcome].tone}>
                      {OUTCOME[judged.outcome].text}
                    </Badge>
                  </td>
                  <td className="nowrap num">{formatJudged(judged.value, judged.unit)}</td>
                  <td className="nowrap num">{formatJudgedInterval(judged)}</td>
                  <td className="nowrap num">
                    {judged.decidable == null ? "–" : `${(100 * judged.decidable).toFixed(1)} %`}
                  </td>
                  <td className="wrap small">{judged.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {run.figures && run.figures.length > 0 && (
        <>
          <h3>The lab&apos;s figures beside the reference</h3>
          <div className="table-scroll">
            <table className="table figures-table">
              <TableHead columns={FIGURE_COLUMNS} />
              <tbody>
                {run.figures.map((figure) => (
                  <tr key={`${figure.series}.${figure.metric}.${figure.source}`}>
                    <th scope="row">{figure.series}</th>
                    <td>
                      {figure.metric}
                      {figure.derived && (
                        <span className="muted small" title="Computed from each trial's measured figure, not measured">
                          {" "}(derived: {figure.derived})
                        </span>
                      )}
                    </td>
                    <td className="nowrap num">{formatValue(figure.reference, figure.unit ?? "")}</td>
                    <td className="wrap small">{figure.source}</td>
                    <td className="nowrap num">{formatValue(figure.lab, figure.unit ?? "")}</td>
                    <td className="nowrap num">
                      {figure.ratio == null ? "–" : `x${figure.ratio.toFixed(2)}`}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {run.status !== "running" && (
        <p>
          <a className="button" href={markdownHref(name, run.id)} download={`${name}-${String(run.id)}.md`}>
            Export as Markdown
          </a>
        </p>
      )}
    </div>
  );
}
