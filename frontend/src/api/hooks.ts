/** What the domain modules' hooks share: several queries read as one, and writes that say
 * which reads they change. */

import {
  useMutation,
  useQueryClient,
  type QueryKey,
  type UseQueryResult,
} from "@tanstack/react-query";

/**
 * What a page reads of a query to show it (QueryResult): a TanStack Query result, or several
 * combined into one (`Combined`: pending while one is, failed when one failed, no retry).
 */
export interface QueryState<T> {
  isPending: boolean;
  error: Error | null;
  data: T | undefined;
  refetch?: () => unknown;
}

/** Several queries as one: their data, pending while one is, the first error. */
export interface Combined<T> {
  data: T;
  isPending: boolean;
  error: Error | null;
}

/** `data` (taken from `results`) with the state of all of them. */
export function combined<R, T>(results: UseQueryResult<R>[], data: T): Combined<T> {
  return {
    data,
    isPending: results.some((result) => result.isPending),
    error: results.find((result) => result.error !== null)?.error ?? null,
  };
}

/**
 * A write after which the reads under `stale` are read again: once it succeeded, or
 * (`"settled"`) whatever came of it, when a failure may have changed them too.
 */
export function useWrite<Variables, Data>(
  mutationFn: (variables: Variables) => Promise<Data>,
  stale: readonly QueryKey[],
  when: "success" | "settled" = "success",
) {
  const queryClient = useQueryClient();
  const refresh = () => {
    for (const queryKey of stale) void queryClient.invalidateQueries({ queryKey });
  };
  return useMutation({
    mutationFn,
    onSuccess: when === "success" ? refresh : undefined,
    onSettled: when === "settled" ? refresh : undefined,
  });
}

/** A write that answers with the whole new document, which replaces the read under `key`. */
export function useReplace<Variables, Data>(
  mutationFn: (variables: Variables) => Promise<Data>,
  key: QueryKey,
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: (saved: Data) => queryClient.setQueryData(key, saved),
  });
}
