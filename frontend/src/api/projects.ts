import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

import { api, unwrap } from "./client";
import { useWrite } from "./hooks";
import { keys } from "./keys";
import type { ProjectCreate, ProjectUpdate, User } from "./types";

/** The projects the signed-in user may switch to (an admin: all of them). */
export function useProjects() {
  return useQuery({
    queryKey: keys.projects.list(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/projects", { signal })),
  });
}

/** Shows another project: every cached answer belonged to the one before, so all go. */
export function useSwitchProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (project: string) =>
      unwrap(api.PUT("/api/v1/auth/project", { body: { project } })),
    onSuccess: (me: User) => {
      queryClient.removeQueries({
        predicate: (query) => query.queryKey[0] !== keys.auth.all[0],
      });
      queryClient.setQueryData(keys.auth.me(), me);
    },
  });
}

export function useCreateProject() {
  return useWrite(
    (body: ProjectCreate) => unwrap(api.POST("/api/v1/projects", { body })),
    [keys.projects.all],
  );
}

export function useUpdateProject() {
  return useWrite(
    ({ slug, body }: { slug: string; body: ProjectUpdate }) =>
      unwrap(api.PATCH("/api/v1/projects/{slug}", { params: { path: { slug } }, body })),
    // The current project's name and settings live in the session's user too.
    [keys.projects.all, keys.auth.me()],
    "settled",
  );
}
