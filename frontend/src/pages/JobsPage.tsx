import { useState } from "react";

import { usePermissions } from "../api/auth";
import { errorMessage } from "../api/client";
import { useCancelJob, useJobs } from "../api/jobs";
import type { JobListQuery, JobRead } from "../api/types";
import { EmptyState, QueryResult } from "../components/common/Status";
import { LaunchPanel } from "../components/jobs/LaunchPanel";
import { JobsTable } from "../components/jobs/JobsTable";
import { Pagination } from "../components/runs/Pagination";
import { JOB_STATUSES } from "../lib/jobs";
import { usePageTitle } from "../hooks/usePageTitle";
import { useUrlFilters } from "../hooks/useUrlFilters";

const PAGE_SIZE = 50;

/** Launch jobs and follow them; the list polls while a job is still going. */
export function JobsPage() {
  usePageTitle("Jobs");
  const { search, setFilter, setOffset } = useUrlFilters();
  const { canWrite } = usePermissions();
  const status = JOB_STATUSES.find((item) => item === search.get("status"));
  const offset = Math.max(0, Number(search.get("offset")) || 0);
  const query: JobListQuery = { limit: PAGE_SIZE, offset, ...(status ? { status } : {}) };
  const jobs = useJobs(query);
  const cancel = useCancelJob();
  const [launched, setLaunched] = useState<number[]>([]);
  const [cancelError, setCancelError] = useState<string | null>(null);
  const linked = Number(search.get("job"));
  const highlight = Number.isInteger(linked) && linked > 0 ? [...launched, linked] : launched;

  function onCancel(job: JobRead) {
    setCancelError(null);
    cancel.mutate(job.id, {
      onError: (error) =>
        setCancelError(`Could not cancel job #${String(job.id)}: ${errorMessage(error)}`),
    });
  }

  return (
    <section>
      <header className="page-header">
        <h1>Jobs</h1>
      </header>
      {canWrite && <LaunchPanel onLaunched={setLaunched} />}
      {launched.length > 0 && (
        <p className="notice" role="status">
          Launched job{launched.length > 1 ? "s" : ""}{" "}
          {launched.map((id) => `#${String(id)}`).join(", ")}; it is highlighted below.
        </p>
      )}
      <h2>Jobs</h2>
      <div className="toolbar">
        <label>
          Status{" "}
          <select value={status ?? ""} onChange={(event) => setFilter("status", event.target.value)}>
            <option value="">any</option>
            {JOB_STATUSES.map((item) => (
              <option key={item} value={item}>
                {item.replace("_", " ")}
              </option>
            ))}
          </select>
        </label>
        {jobs.isFetching && !jobs.isPending && <span className="muted small">Updating…</span>}
      </div>
      {cancelError && (
        <p className="form-error" role="alert">
          {cancelError}
        </p>
      )}
      <QueryResult
        query={jobs}
        loading="Loading jobs…"
        isEmpty={(data) => data.items.length === 0}
        empty={
          <EmptyState title={status ? `No ${status.replace("_", " ")} jobs` : "No jobs yet"}>
            {canWrite ? "Launch one above." : "Members launch jobs here."}
          </EmptyState>
        }
      >
        {(data) => (
          <>
            <div className="table-scroll">
              <JobsTable
                jobs={data.items}
                highlight={highlight}
                linked={linked > 0 ? linked : undefined}
                canWrite={canWrite}
                cancelling={cancel.isPending ? (cancel.variables ?? null) : null}
                onCancel={onCancel}
              />
            </div>
            <Pagination
              total={data.total}
              limit={PAGE_SIZE}
              offset={offset}
              onOffsetChange={setOffset}
            />
          </>
        )}
      </QueryResult>
    </section>
  );
}
