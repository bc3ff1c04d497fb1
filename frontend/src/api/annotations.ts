import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

import { api, unwrap } from "./client";
import { keys } from "./keys";
import type { AnnotationCreate, AnnotationQuery } from "./types";

/** The project's annotations of a suite (and of every suite) from a moment on, newest first. */
export function useAnnotations(query: AnnotationQuery, enabled = true) {
  return useQuery({
    queryKey: keys.annotations.list(query),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/annotations", { params: { query }, signal })),
    enabled,
  });
}

/** Marks a moment on the project's trends; a 422 says what is wrong with it. */
export function useCreateAnnotation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: AnnotationCreate) => unwrap(api.POST("/api/v1/annotations", { body })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: keys.annotations.all }),
  });
}

export function useDeleteAnnotation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) =>
      unwrap(
        api.DELETE("/api/v1/annotations/{annotation_id}", {
          params: { path: { annotation_id: id } },
        }),
      ),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: keys.annotations.all }),
  });
}
