import { keepPreviousData, useQuery } from "@tanstack/react-query";

import { api, unwrap } from "./client";
import { useWrite } from "./hooks";
import { keys } from "./keys";
import { isActive } from "./states";
import type { JobCreate, JobListQuery, JobPage } from "./types";

/** Polls every second while a job in the list is still going, and not at all otherwise. */
export const POLL_MS = 1_000;

export function useJobs(query: JobListQuery) {
  return useQuery({
    queryKey: keys.jobs.list(query),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/jobs", { params: { query }, signal })),
    placeholderData: keepPreviousData,
    refetchInterval: (result) => (hasActive(result.state.data) ? POLL_MS : false),
  });
}

function hasActive(page: JobPage | undefined): boolean {
  return page?.items.some((job) => isActive(job.status)) ?? false;
}

/** One job: what it measured (a try job's base and head commits), its status and run. */
export function useJob(jobId: number | null) {
  return useQuery({
    queryKey: keys.jobs.detail(jobId ?? 0),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/v1/jobs/{job_id}", { params: { path: { job_id: jobId ?? 0 } }, signal }),
      ),
    enabled: jobId !== null,
  });
}

/** What a launch would run and for how long (the API checks it as it checks a launch). */
export function useJobEstimate(body: JobCreate | undefined) {
  return useQuery({
    queryKey: keys.jobs.estimate(body ?? ({} as JobCreate)),
    queryFn: ({ signal }) =>
      unwrap(api.POST("/api/v1/jobs/estimate", { body: body as JobCreate, signal })),
    enabled: body !== undefined,
    placeholderData: keepPreviousData,
    retry: false,
  });
}

export function useCreateJob() {
  return useWrite((body: JobCreate) => unwrap(api.POST("/api/v1/jobs", { body })), [keys.jobs.all]);
}

export function useCancelJob() {
  return useWrite(
    (jobId: number) =>
      unwrap(api.POST("/api/v1/jobs/{job_id}/cancel", { params: { path: { job_id: jobId } } })),
    [keys.jobs.all],
    "settled",
  );
}
