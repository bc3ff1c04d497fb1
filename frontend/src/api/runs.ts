import {
  keepPreviousData,
  useQueries,
  useQuery,
  type UseQueryResult,
} from "@tanstack/react-query";

import { api, unwrap } from "./client";
import { keys } from "./keys";
import type { RunListQuery, Spectrum } from "./types";

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

export interface SpectraResult {
  data: Spectrum[];
  isPending: boolean;
  error: Error | null;
}

/** The spectra of several series of one run, fetched in parallel. */
export function useSpectra(runId: number, seriesIds: number[]): SpectraResult {
  return useQueries({
    queries: seriesIds.map((seriesId) => ({
      queryKey: keys.runs.spectrum(runId, seriesId),
      queryFn: ({ signal }: { signal: AbortSignal }) =>
        unwrap(
          api.GET("/api/v1/runs/{run_id}/series/{series_id}/spectrum", {
            params: { path: { run_id: runId, series_id: seriesId } },
            signal,
          }),
        ),
      staleTime: Infinity,
    })),
    combine: combineSpectra,
  });
}

// Module-level, so TanStack Query re-runs it only when a result changes; an inline function
// would hand the chart a new array on every render.
function combineSpectra(results: UseQueryResult<Spectrum>[]): SpectraResult {
  return {
    data: results.flatMap((result) => (result.data === undefined ? [] : [result.data])),
    isPending: results.some((result) => result.isPending),
    error: results.find((result) => result.error !== null)?.error ?? null,
  };
}
