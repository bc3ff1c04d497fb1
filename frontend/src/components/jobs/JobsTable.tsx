import { useEffect, useRef } from "react";

import { isActive } from "../../api/states";
import type { JobRead } from "../../api/types";
import { formatDateTime, formatDuration } from "../../lib/format";
import { statusTone } from "../../lib/jobs";
import { describeRepoJob } from "../../lib/repos";
import { describeStages } from "../../lib/tries";
import { Badge } from "../common/Badge";
import { ProgressBar } from "../common/ProgressBar";
import { RunLink } from "../common/RunLink";
import { hidden, TableHead } from "../common/TableHead";

const COLUMNS = ["Job", "Suite / scenario", "Status", "Progress", "Host", "Created", "Took", "Run"];

/** Jobs, one per row; the `linked` job (a link to it) is scrolled to once it is listed. */
export function JobsTable({
  jobs,
  highlight,
  linked,
  canWrite,
  cancelling,
  onCancel,
}: {
  jobs: JobRead[];
  highlight: number[];
  linked?: number;
  canWrite: boolean;
  cancelling: number | null;
  onCancel: (job: JobRead) => void;
}) {
  const table = useRef<HTMLTableElement>(null);
  const listed = linked !== undefined && jobs.some((job) => job.id === linked);
  useEffect(() => {
    if (!listed) return;
    table.current
      ?.querySelector(`tr[data-job-id="${String(linked)}"]`)
      ?.scrollIntoView({ block: "center" });
  }, [listed, linked]);
  return (
    <table className="table jobs-table" ref={table}>
      <TableHead columns={[...COLUMNS, hidden("Actions")]} />
      <tbody>
        {jobs.map((job) => (
          <tr
            key={job.id}
            data-job-id={job.id}
            data-status={job.status}
            className={highlight.includes(job.id) ? "highlight" : undefined}
          >
            <td>#{job.id}</td>
            <td className="wrap">
              {job.suite} / {job.scenario}
              {job.repo !== null && (
                <div className="small mono" data-testid="job-repo">
                  {describeRepoJob(job)}
                </div>
              )}
              <JobStages job={job} />
              {Object.keys(job.params).length > 0 && (
                <div className="small muted mono">
                  {Object.entries(job.params)
                    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
                    .join(" ")}
                </div>
              )}
              {job.error && <div className="small text-bad">{job.error}</div>}
            </td>
            <td>
              <Badge tone={statusTone(job.status)}>{job.status.replace("_", " ")}</Badge>
              {job.attempts > 1 && <div className="small muted">attempt {job.attempts}</div>}
            </td>
            <td className="progress-cell">
              {isActive(job.status) || job.status === "succeeded" ? (
                <ProgressBar value={job.progress} label={job.phase ?? job.status} />
              ) : (
                <span className="muted">—</span>
              )}
              {isActive(job.status) && job.phase && <div className="small muted">{job.phase}</div>}
            </td>
            <td>
              {job.host_name ??
                (job.host_tags.length > 0 ? (
                  <span className="muted">tags: {job.host_tags.join(", ")}</span>
                ) : (
                  "—"
                ))}
            </td>
            <td className="nowrap">{formatDateTime(job.created_at)}</td>
            <td className="nowrap">
              {job.started_at ? formatDuration(job.started_at, job.finished_at) : "—"}
            </td>
            <td>
              {job.run_id !== null ? (
                <RunLink id={job.run_id} text="Run #" />
              ) : (
                "—"
              )}
            </td>
            <td>
              {canWrite && isActive(job.status) && (
                <button
                  type="button"
                  className="button button-small"
                  disabled={cancelling === job.id}
                  onClick={() => onCancel(job)}
                  aria-label={`Cancel job #${String(job.id)}`}
                >
                  Cancel
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Where a try job's stages are, under what it measures. */
function JobStages({ job }: { job: JobRead }) {
  const text = describeStages(job);
  if (text === null) return null;
  return (
    <div className="small muted" data-testid="job-stages">
      {text}
    </div>
  );
}
