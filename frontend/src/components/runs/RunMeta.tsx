import { Link } from "react-router";

import type { RunRead } from "../../api/types";
import { formatDateTime, formatDuration, trialsPerSeries } from "../../lib/format";
import { repositoryHref } from "../../lib/repos";

export function RunMeta({ run }: { run: RunRead }) {
  const params = Object.entries(run.params);
  const machine = Object.entries(run.harness?.context ?? {});
  return (
    <dl className="meta">
      <div>
        <dt>Project</dt>
        <dd>{run.project}</dd>
      </div>
      <div>
        <dt>Host</dt>
        <dd>
          {run.host_name ?? "—"}
          {run.host_tags.length > 0 && <span className="muted"> ({run.host_tags.join(", ")})</span>}
        </dd>
      </div>
      <div>
        <dt>Source</dt>
        <dd>
          {run.source.kind}
          {run.job_id !== null && (
            <>
              {" · "}
              <Link to={`/jobs?job=${String(run.job_id)}`}>job #{run.job_id}</Link>
            </>
          )}
          {run.source.pull_request !== null && ` · PR #${String(run.source.pull_request)}`}
          {run.source.build_url && (
            <>
              {" · "}
              <a href={run.source.build_url} target="_blank" rel="noreferrer">
                CI build
              </a>
            </>
          )}
        </dd>
      </div>
      <div>
        <dt>Branch</dt>
        <dd>{run.source.branch ?? "—"}</dd>
      </div>
      <div>
        <dt>Commit</dt>
        <dd className="mono">
          {run.source.repo && (
            <>
              <Link to={repositoryHref(run.source.repo)}>{run.source.repo}</Link> @{" "}
            </>
          )}
          {run.source.commit ?? "—"}
        </dd>
      </div>
      <div>
        <dt>Started</dt>
        <dd>{formatDateTime(run.started_at)}</dd>
      </div>
      <div>
        <dt>Duration</dt>
        <dd>{formatDuration(run.started_at, run.finished_at)}</dd>
      </div>
      <div>
        <dt>Trials per series</dt>
        <dd>{trialsPerSeries(run.series)}</dd>
      </div>
      {params.length > 0 && (
        <div className="meta-wide">
          <dt>Parameters</dt>
          <dd className="mono">
            {params.map(([key, value]) => `${key}=${JSON.stringify(value)}`).join("  ")}
          </dd>
        </div>
      )}
      {machine.length > 0 && (
        <div className="meta-wide">
          <dt>Harness context</dt>
          <dd className="mono" aria-label="The machine and build the harness said it ran on">
            {machine.map(([key, value]) => `${key}=${JSON.stringify(value)}`).join("  ")}
          </dd>
        </div>
      )}
    </dl>
  );
}
