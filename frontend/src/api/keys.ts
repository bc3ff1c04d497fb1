/** Every TanStack Query key of the app, so invalidation has one place to look. */

import type { RunListQuery } from "./types";

export const keys = {
  auth: {
    all: ["auth"] as const,
    me: () => [...keys.auth.all, "me"] as const,
  },
  runs: {
    all: ["runs"] as const,
    list: (query: RunListQuery) => [...keys.runs.all, "list", query] as const,
    detail: (runId: number) => [...keys.runs.all, "detail", runId] as const,
    spectrum: (runId: number, seriesId: number) =>
      [...keys.runs.detail(runId), "spectrum", seriesId] as const,
  },
};
