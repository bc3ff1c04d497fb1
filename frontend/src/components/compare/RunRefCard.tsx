import { Link } from "react-router";

import type { RunRef } from "../../api/types";
import { formatDateTime, shortCommit } from "../../lib/format";

export function RunRefCard({ role, run }: { role: "Baseline" | "Candidate"; run: RunRef }) {
  return (
    <div className="panel run-ref">
      <h3>
        {role}: <Link to={`/runs/${String(run.id)}`}>run #{run.id}</Link>
      </h3>
      <dl className="kv">
        <div>
          <dt>Benchmark</dt>
          <dd>
            {run.suite} / {run.scenario}
          </dd>
        </div>
        <div>
          <dt>Branch</dt>
          <dd>{run.branch ?? "—"}</dd>
        </div>
        <div>
          <dt>Commit</dt>
          <dd className="mono" title={run.commit ?? undefined}>
            {shortCommit(run.commit)}
          </dd>
        </div>
        <div>
          <dt>Host</dt>
          <dd>{run.host_name ?? "—"}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{formatDateTime(run.started_at)}</dd>
        </div>
      </dl>
    </div>
  );
}
