import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

import { api, unwrap } from "./client";
import { useWrite } from "./hooks";
import { keys } from "./keys";
import { isRunning } from "./states";
import type { BisectionCreate, BisectionRead } from "./types";

/** A running bisection moves a step at a time (a try job each): a few seconds is soon enough. */
export const BISECTION_POLL_MS = 3_000;

/** The project's bisections, newest first; polled while one of them is still searching. */
export function useBisections() {
  return useQuery({
    queryKey: keys.bisections.list(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/bisections", { signal })),
    refetchInterval: (query) =>
      (query.state.data ?? []).some((bisection) => isRunning(bisection.status))
        ? BISECTION_POLL_MS
        : false,
  });
}

/** One bisection: its commits as the search knows them and its steps; polled while running. */
export function useBisection(bisectionId: number) {
  return useQuery({
    queryKey: keys.bisections.detail(bisectionId),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/v1/bisections/{bisection_id}", {
          params: { path: { bisection_id: bisectionId } },
          signal,
        }),
      ),
    refetchInterval: (query) =>
      query.state.data !== undefined && isRunning(query.state.data.status)
        ? BISECTION_POLL_MS
        : false,
  });
}

/**
 * Starts a bisection; the same question asked before answers with its bisection (200, not
 * 201), so `created` says which it was.
 */
export function useCreateBisection() {
  return useWrite(
    async (body: BisectionCreate): Promise<{ bisection: BisectionRead; created: boolean }> => {
      const request = api.POST("/api/v1/bisections", { body });
      const bisection = await unwrap(request);
      return { bisection, created: (await request).response.status === 201 };
    },
    // Its first step is a try job.
    [keys.bisections.all, keys.jobs.all],
  );
}

/** Ends a running bisection; its step's job is cancelled with it. */
export function useCancelBisection() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (bisectionId: number) =>
      unwrap(
        api.POST("/api/v1/bisections/{bisection_id}/cancel", {
          params: { path: { bisection_id: bisectionId } },
        }),
      ),
    onSuccess: (bisection) =>
      queryClient.setQueryData(keys.bisections.detail(bisection.id), bisection),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: keys.bisections.all });
      void queryClient.invalidateQueries({ queryKey: keys.jobs.all });
    },
  });
}
