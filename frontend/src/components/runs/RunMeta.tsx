import { Link } from "react-router";

import type { RunRead } from "../../api/types";
import { formatDateTime, formatDuration, trialsPerSeries } from "../../lib/format";
import { repositoryHref } from "../../lib/repos";
import { MetaItem } from "../common/Meta";

export function RunMeta({ run }: { run: RunRead }) {
  const params = Object.entries(run.params);
  const machine = Object.entries(run.harness?.context ?? {});
  return (
    <dl className="meta">
      <MetaItem term="Project">{run.project}</MetaItem>
      <MetaItem term="Host">
        {run.host_name ?? "—"}
        {run.host_tags.length > 0 && <span className="muted"> ({run.host_tags.join(", ")})</span>}
      </MetaItem>
      <MetaItem term="Source">
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
      </MetaItem>
      <MetaItem term="Branch">{run.source.branch ?? "—"}</MetaItem>
      <MetaItem term="Commit" className="mono">
        {run.source.repo && (
          <>
            <Link to={repositoryHref(run.source.repo)}>{run.source.repo}</Link> @{" "}
          </>
        )}
        {run.source.commit ?? "—"}
      </MetaItem>
      <MetaItem term="Started">{formatDateTime(run.started_at)}</MetaItem>
      <MetaItem term="Duration">{formatDuration(run.started_at, run.finished_at)}</MetaItem>
      <MetaItem term="Trials per series">{trialsPerSeries(run.series)}</MetaItem>
      {params.length > 0 && (
        <MetaItem term="Parameters" wide className="mono">
          {params.map(([key, value]) => `${key}=${JSON.stringify(value)}`).join("  ")}
        </MetaItem>
      )}
      {machine.length > 0 && (
        <MetaItem
          term="Harness context"
          wide
          className="mono"
          label="The machine and build the harness said it ran on"
        >
          {machine.map(([key, value]) => `${key}=${JSON.stringify(value)}`).join("  ")}
        </MetaItem>
      )}
    </dl>
  );
}
