import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

import { api, unwrap } from "./client";
import { useWrite } from "./hooks";
import { keys } from "./keys";
import type { RepositoryCreate, RepositoryUpdate } from "./types";

/** The project's repositories (never their credentials). */
export function useRepositories(enabled = true) {
  return useQuery({
    queryKey: keys.repos.list(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/repositories", { signal })),
    enabled,
  });
}

export function useRepository(name: string) {
  return useQuery({
    queryKey: keys.repos.detail(name),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/v1/repositories/{name}", { params: { path: { name } }, signal })),
  });
}

/**
 * The newest commits reachable from `ref` ("": the default branch), fetched by the lab as it
 * answers; the previous ref's stay shown while another is read.
 */
export function useCommits(name: string, ref: string) {
  return useQuery({
    queryKey: keys.repos.commits(name, ref),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/v1/repositories/{name}/commits", {
          params: { path: { name }, query: ref === "" ? {} : { ref } },
          signal,
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

/** Registers a repository; the lab reads it first, and a 422 says why it could not. */
export function useCreateRepository() {
  return useWrite(
    (body: RepositoryCreate) => unwrap(api.POST("/api/v1/repositories", { body })),
    [keys.repos.all],
  );
}

/**
 * Changes a repository (e.g. its commit URL; null removes it); a 422 says why it could not.
 * Its commits are not read again; its bisections are (they carry its commit URL).
 */
export function useUpdateRepository(name: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: RepositoryUpdate) =>
      unwrap(api.PATCH("/api/v1/repositories/{name}", { params: { path: { name } }, body })),
    onSuccess: (repo) => {
      queryClient.setQueryData(keys.repos.detail(name), repo);
      void queryClient.invalidateQueries({ queryKey: keys.repos.list() });
      void queryClient.invalidateQueries({ queryKey: keys.bisections.all });
    },
  });
}
