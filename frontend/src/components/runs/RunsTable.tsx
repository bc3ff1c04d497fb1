import { Link, useNavigate } from "react-router";

import type { RunSummary } from "../../api/types";
import { formatDateTime, shortCommit } from "../../lib/format";

export function RunsTable({ runs }: { runs: RunSummary[] }) {
  const navigate = useNavigate();
  return (
    <table className="table runs-table">
      <thead>
        <tr>
          <th scope="col">ID</th>
          <th scope="col">Suite</th>
          <th scope="col">Scenario</th>
          <th scope="col">Branch</th>
          <th scope="col">Commit</th>
          <th scope="col">Host</th>
          <th scope="col">Source</th>
          <th scope="col">Started</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => (
          <tr
            key={run.id}
            data-run-id={run.id}
            className="clickable"
            onClick={() => void navigate(`/runs/${String(run.id)}`)}
          >
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
            <td className="nowrap">{formatDateTime(run.started_at)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
