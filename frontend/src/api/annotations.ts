import { useQuery } from "@tanstack/react-query";

import { api, unwrap } from "./client";
import { useWrite } from "./hooks";
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
  return useWrite(
    (body: AnnotationCreate) => unwrap(api.POST("/api/v1/annotations", { body })),
    [keys.annotations.all],
  );
}

export function useDeleteAnnotation() {
  return useWrite(
    (id: number) =>
      unwrap(
        api.DELETE("/api/v1/annotations/{annotation_id}", {
          params: { path: { annotation_id: id } },
        }),
      ),
    [keys.annotations.all],
  );
}
