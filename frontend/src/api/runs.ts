import { keepPreviousData, useQueries, useQuery, type UseQueryResult } from "@tanstack/react-query";

import { api, unwrap } from "./client";
import { combined, useReplace, type Combined } from "./hooks";
import { keys } from "./keys";
import type {
  OverviewQuery,
  RetentionUpdate,
  RunListQuery,
  RunRead,
  Spectrum,
} from "./types";

export function useRuns(query: RunListQuery) {
  return useQuery({
    queryKey: keys.runs.list(query),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/runs", { params: { query }, signal })),
    placeholderData: keepPreviousData,
  });
}

export function useRun(runId: number) {
  return useQuery({
    queryKey: keys.runs.detail(runId),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/v1/runs/{run_id}", { params: { path: { run_id: runId } }, signal })),
    // Stored runs never change.
    staleTime: Infinity,
  });
}

/**
 * The project each run belongs to, asked when the runs are not in the session's project (a
 * shared URL): the API answers for projects the user may use, 404 otherwise.
 */
export function useRunProjects(runIds: number[], enabled: boolean) {
  return useQueries({
    queries: runIds.map((runId) => ({
      enabled,
      queryKey: keys.runs.project(runId),
      queryFn: ({ signal }: { signal: AbortSignal }) =>
        unwrap(
          api.GET("/api/v1/runs/{run_id}/project", {
            params: { path: { run_id: runId } },
            signal,
          }),
        ),
      retry: false,
    })),
  });
}

/** Around a run: each series' history and baseline value, the alerts it opened. */
export function useRunContext(runId: number) {
  return useQuery({
    queryKey: keys.runs.context(runId),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/v1/runs/{run_id}/context", { params: { path: { run_id: runId } }, signal }),
      ),
  });
}

/** The run's CPU profiles (one per series and program profiled), without their stacks. */
export function useProfiles(runId: number, enabled = true) {
  return useQuery({
    enabled,
    queryKey: keys.runs.profiles(runId),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/v1/runs/{run_id}/profiles", { params: { path: { run_id: runId } }, signal }),
      ),
    staleTime: Infinity,
  });
}

/**
 * One profile's stacks as the API's speedscope document (the schema leaves its body untyped:
 * `lib/flamegraph` reads and checks it).
 */
export function useProfileStacks(runId: number, profileId: number | null) {
  return useQuery({
    enabled: profileId !== null,
    queryKey: keys.runs.profile(runId, profileId ?? 0),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/v1/runs/{run_id}/profiles/{profile_id}", {
          params: {
            path: { run_id: runId, profile_id: profileId ?? 0 },
            query: { format: "speedscope" },
          },
          signal,
        }),
      ),
    staleTime: Infinity,
  });
}

/** Metric labels, time units and the tail rule: how the API reads numbers. */
export function useVocabulary(enabled = true) {
  return useQuery({
    enabled,
    queryKey: keys.runs.vocabulary(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/vocabulary", { signal })),
    staleTime: Infinity,
  });
}

export function useRetention() {
  return useQuery({
    queryKey: keys.runs.retention(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/retention", { signal })),
  });
}

export function useUpdateRetention() {
  return useReplace(
    (body: RetentionUpdate) => unwrap(api.PUT("/api/v1/retention", { body })),
    keys.runs.retention(),
  );
}

export type SpectraResult = Combined<Spectrum[]>;

/** The spectra of several series of one run: one request. */
export function useSpectra(runId: number, seriesIds: number[]): SpectraResult {
  return useSeriesSpectra(seriesIds.map((seriesId) => ({ runId, seriesId })));
}

/** The spectra of series of any runs: one request per run (the API's batch is at most 40). */
export function useSeriesSpectra(series: { runId: number; seriesId: number }[]): SpectraResult {
  const byRun = new Map<number, number[]>();
  for (const { runId, seriesId } of series) byRun.set(runId, [...(byRun.get(runId) ?? []), seriesId]);
  return useQueries({
    queries: [...byRun].flatMap(([runId, ids]) =>
      chunks(ids, MAX_SPECTRA).map((chunk) => ({
        queryKey: keys.runs.spectra(runId, chunk),
        queryFn: ({ signal }: { signal: AbortSignal }) =>
          unwrap(
            api.GET("/api/v1/runs/{run_id}/spectra", {
              params: { path: { run_id: runId }, query: { series_id: chunk } },
              signal,
            }),
          ),
        staleTime: Infinity,
      })),
    ),
    combine: combineSpectra,
  });
}

/** The most spectra the API gives in one request. */
export const MAX_SPECTRA = 40;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

// Module-level, so TanStack Query re-runs it only when a result changes; an inline function
// would hand the chart a new array on every render.
function combineSpectra(results: UseQueryResult<Spectrum[]>[]): SpectraResult {
  return combined(results, results.flatMap((result) => result.data ?? []));
}

/** Every suite and scenario with its latest run, failing first (one server-side query). */
export function useOverview(query: OverviewQuery) {
  return useQuery({
    queryKey: keys.runs.overview(query),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/v1/overview", { params: { query }, signal })),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
}

export type RunDetailsResult = Combined<RunRead[]>;

/** Several runs in full, fetched in parallel (stored runs never change). */
export function useRunDetails(runIds: number[]): RunDetailsResult {
  return useQueries({
    queries: runIds.map((runId) => ({
      queryKey: keys.runs.detail(runId),
      queryFn: ({ signal }: { signal: AbortSignal }) =>
        unwrap(api.GET("/api/v1/runs/{run_id}", { params: { path: { run_id: runId } }, signal })),
      staleTime: Infinity,
    })),
    combine: combineDetails,
  });
}

function combineDetails(results: UseQueryResult<RunRead>[]): RunDetailsResult {
  return combined(
    results,
    results.flatMap((result) => (result.data === undefined ? [] : [result.data])),
  );
}
