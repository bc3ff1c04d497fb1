import { useState } from "react";

import { usePermissions } from "../api/auth";
import { errorMessage } from "../api/client";
import { useCancelJob, useJobs } from "../api/jobs";
import type { JobListQuery, JobRead } from "../api/types";
import { LabelledSelect } from "../components/common/Select";
import { EmptyState } from "../components/common/Status";
import { JobsTable } from "../components/jobs/JobsTable";
import { LaunchPanel } from "../components/jobs/LaunchPanel";
import { Page } from "../components/layout/Page";
import { PagedResult } from "../components/runs/Pagination";
import { useLaunchCatalogue } from "../hooks/useLaunchCatalogue";
import { usePageTitle } from "../hooks/usePageTitle";
import { useUrlFilters } from "../hooks/useUrlFilters";
import { JOB_STATUSES } from "../lib/jobs";

const PAGE_SIZE = 50;

/** Launch jobs and follow them; the list polls while a job is still going. */
export function JobsPage() {
  usePageTitle("Jobs");
  const { search, setFilter, setOffset } = useUrlFilters();
  const { canWrite } = usePermissions();
  const catalogue = useLaunchCatalogue(canWrite);
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
    <Page title="Jobs">
      {canWrite && <LaunchPanel catalogue={catalogue} onLaunched={setLaunched} />}
      {launched.length > 0 && (
        <p className="notice" role="status">
          Launched job{launched.length > 1 ? "s" : ""}{" "}
          {launched.map((id) => `#${String(id)}`).join(", ")}; it is highlighted below.
        </p>
      )}
      <h2>Jobs</h2>
      <div className="toolbar">
        <LabelledSelect
          label="Status"
          value={status ?? ""}
          blank="any"
          options={JOB_STATUSES.map((item) => ({ value: item, text: item.replace("_", " ") }))}
          onChange={(value) => setFilter("status", value)}
        />
        {jobs.isFetching && !jobs.isPending && <span className="muted small">Updating…</span>}
      </div>
      {cancelError && (
        <p className="form-error" role="alert">
          {cancelError}
        </p>
      )}
      <PagedResult
        query={jobs}
        loading="Loading jobs…"
        limit={PAGE_SIZE}
        offset={offset}
        onOffsetChange={setOffset}
        empty={
          <EmptyState title={status ? `No ${status.replace("_", " ")} jobs` : "No jobs yet"}>
            {canWrite ? "Launch one above." : "Members launch jobs here."}
          </EmptyState>
        }
      >
        {(items) => (
          <JobsTable
            jobs={items}
            highlight={highlight}
            linked={linked > 0 ? linked : undefined}
            canWrite={canWrite}
            cancelling={cancel.isPending ? (cancel.variables ?? null) : null}
            onCancel={onCancel}
          />
        )}
      </PagedResult>
    </Page>
  );
}
