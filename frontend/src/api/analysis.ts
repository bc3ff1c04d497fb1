import {
  useMutation,
  useQueries,
  useQuery,
  useQueryClient,
  type UseQueryResult,
} from "@tanstack/react-query";

import { api, unwrap } from "./client";
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
  return {
    data: results.map((result) => result.data),
    isPending: results.some((result) => result.isPending),
    error: results.find((result) => result.error !== null)?.error ?? null,
  };
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

export interface TrendsResult {
  data: (TrendRead | undefined)[];
  isPending: boolean;
  error: Error | null;
}

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
  return {
    data: results.map((result) => result.data),
    isPending: results.some((result) => result.isPending),
    error: results.find((result) => result.error !== null)?.error ?? null,
  };
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
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (runId: number) =>
      unwrap(api.POST("/api/v1/baselines", { body: { run_id: runId, branch: null } })),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: keys.analysis.baselines() }),
  });
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
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: GateSettings) => unwrap(api.PUT("/api/v1/gate-settings", { body })),
    onSuccess: (saved) => queryClient.setQueryData(keys.analysis.gateSettings(), saved),
  });
}
