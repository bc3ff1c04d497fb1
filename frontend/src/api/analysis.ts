import { useQueries, useQuery, type UseQueryResult } from "@tanstack/react-query";

import { api, unwrap } from "./client";
import { combined, useReplace, useWrite, type Combined } from "./hooks";
import { keys } from "./keys";
import type {
  CompareQuery,
  CompareRead,
  GateSettings,
  ProfileCompareQuery,
  TrendQuery,
  TrendRead,
} from "./types";

export function useCompare(query: CompareQuery) {
  return useQuery({
    queryKey: keys.analysis.compare(query),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/compare", { params: { query }, signal })),
    // Two stored runs compare the same way every time.
    staleTime: Infinity,
  });
}

/** Several comparisons at once (a run against each of several others), in parallel. */
export function useCompares(queries: CompareQuery[]) {
  return useQueries({
    queries: queries.map((query) => ({
      queryKey: keys.analysis.compare(query),
      queryFn: ({ signal }: { signal: AbortSignal }) =>
        unwrap(api.GET("/api/v1/compare", { params: { query }, signal })),
      staleTime: Infinity,
    })),
    combine: combineCompares,
  });
}

function combineCompares(results: UseQueryResult<CompareRead>[]) {
  return combined(results, results.map((result) => result.data));
}

/** Two runs' CPU profiles, matched series by series: frame deltas and both sides' stacks. */
export function useProfileCompare(query: ProfileCompareQuery) {
  return useQuery({
    queryKey: keys.analysis.compareProfiles(query),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/v1/compare/profiles", { params: { query }, signal })),
    staleTime: Infinity,
  });
}

export type TrendsResult = Combined<(TrendRead | undefined)[]>;

/** One trend per query (a series each), fetched in parallel. */
export function useTrends(queries: TrendQuery[]): TrendsResult {
  return useQueries({
    queries: queries.map((query) => ({
      queryKey: keys.analysis.trends(query),
      queryFn: ({ signal }: { signal: AbortSignal }) =>
        unwrap(api.GET("/api/v1/trends", { params: { query }, signal })),
    })),
    combine: combineTrends,
  });
}

function combineTrends(results: UseQueryResult<TrendRead>[]): TrendsResult {
  return combined(results, results.map((result) => result.data));
}

/** The series and metrics a scenario's trend can draw (its newest runs', and `runId`'s). */
export function useTrendSeries(suite: string, scenario: string, runId: number | null) {
  return useQuery({
    queryKey: keys.analysis.trendSeries(suite, scenario, runId),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/v1/trends/series", {
          params: { query: { suite, scenario, ...(runId === null ? {} : { run_id: runId }) } },
          signal,
        }),
      ),
  });
}

export function useBaselines() {
  return useQuery({
    queryKey: keys.analysis.baselines(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/baselines", { signal })),
  });
}

export function usePinBaseline() {
  return useWrite(
    (runId: number) =>
      unwrap(api.POST("/api/v1/baselines", { body: { run_id: runId, branch: null } })),
    [keys.analysis.baselines()],
    "settled",
  );
}

/** The CI gate's thresholds of the current project (every member reads them). */
export function useGateSettings() {
  return useQuery({
    queryKey: keys.analysis.gateSettings(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/gate-settings", { signal })),
  });
}

/** Replace the project's gate thresholds (admins): the whole document, default and suites. */
export function useUpdateGateSettings() {
  return useReplace(
    (body: GateSettings) => unwrap(api.PUT("/api/v1/gate-settings", { body })),
    keys.analysis.gateSettings(),
  );
}
