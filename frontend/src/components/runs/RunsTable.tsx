import { Link, useNavigate } from "react-router";

import type { RunSummary } from "../../api/types";
import { formatDateTime, shortCommit } from "../../lib/format";
import { RunVerdictBadge } from "../common/VerdictBadge";

/**
 * Runs, one per row; a row opens its run. With `picked` the first column holds a checkbox per
 * run, to choose two for a comparison.
 */
export function RunsTable({
  runs,
  picked,
  onTogglePick,
}: {
  runs: RunSummary[];
  picked?: number[];
  onTogglePick?: (run: RunSummary) => void;
}) {
  const navigate = useNavigate();
  const picking = picked !== undefined && onTogglePick !== undefined;
  return (
    <table className="table runs-table">
      <thead>
        <tr>
          {picking && (
            <th scope="col">
              <span className="visually-hidden">Compare</span>
            </th>
          )}
          <th scope="col">ID</th>
          <th scope="col">Suite</th>
          <th scope="col">Scenario</th>
          <th scope="col">Branch</th>
          <th scope="col">Commit</th>
          <th scope="col">Host</th>
          <th scope="col">Source</th>
          <th scope="col">Verdict</th>
          <th scope="col">Started</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => {
          const isPicked = picked?.includes(run.id) ?? false;
          return (
            <tr
              key={run.id}
              data-run-id={run.id}
              className={`clickable${isPicked ? " picked" : ""}`}
              onClick={() => void navigate(`/runs/${String(run.id)}`)}
            >
              {picking && (
                <td onClick={(event) => event.stopPropagation()}>
                  <input
                    type="checkbox"
                    checked={isPicked}
                    onChange={() => onTogglePick(run)}
                    aria-label={`Pick run #${String(run.id)} to compare`}
                  />
                </td>
              )}
              <td>
                <Link to={`/runs/${String(run.id)}`} onClick={(event) => event.stopPropagation()}>
                  #{run.id}
                </Link>
              </td>
              <td>{run.suite}</td>
              <td>{run.scenario}</td>
              <td>{run.source.branch ?? "—"}</td>
              <td className="mono" title={run.source.commit ?? undefined}>
                {shortCommit(run.source.commit)}
              </td>
              <td>{run.host_name ?? "—"}</td>
              <td>
                <span className={`badge badge-${run.source.kind}`}>{run.source.kind}</span>
              </td>
              <td>
                <RunVerdictBadge verdict={run.verdict} />
              </td>
              <td className="nowrap">{formatDateTime(run.started_at)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
