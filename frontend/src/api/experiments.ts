import { useQuery } from "@tanstack/react-query";

import { api, unwrap } from "./client";
import { useWrite } from "./hooks";
import { keys } from "./keys";
import type { ExperimentDocument, ExperimentRead } from "./types";

/** An experiment's jobs take minutes: a few seconds between looks is soon enough. */
export const EXPERIMENT_POLL_MS = 3_000;

/** The project's experiments, each at its latest version. */
export function useExperiments() {
  return useQuery({
    queryKey: keys.experiments.list(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/experiments", { signal })),
  });
}

/** An experiment at its latest version. */
export function useExperiment(name: string) {
  return useQuery({
    queryKey: keys.experiments.detail(name),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/v1/experiments/{name}", { params: { path: { name } }, signal })),
  });
}

/** An experiment's runs, newest first; polled while one of them is running. */
export function useExperimentRuns(name: string) {
  return useQuery({
    queryKey: keys.experiments.runs(name),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/v1/experiments/{name}/runs", { params: { path: { name } }, signal }),
      ),
    refetchInterval: (query) =>
      (query.state.data ?? []).some((run) => run.status === "running")
        ? EXPERIMENT_POLL_MS
        : false,
  });
}

/** Saves a document: `created` is false when it was unchanged (its latest version, 200). */
export function useSaveExperiment() {
  return useWrite(
    async (body: ExperimentDocument): Promise<{ experiment: ExperimentRead; created: boolean }> => {
      const request = api.POST("/api/v1/experiments", { body });
      const experiment = await unwrap(request);
      return { experiment, created: (await request).response.status === 201 };
    },
    [keys.experiments.all],
  );
}

/** Runs an experiment's latest version on hosts with these tags. */
export function useRunExperiment(name: string) {
  return useWrite(
    (hostTags: string[]) =>
      unwrap(
        api.POST("/api/v1/experiments/{name}/runs", {
          params: { path: { name } },
          body: { host_tags: hostTags },
        }),
      ),
    [keys.experiments.runs(name), keys.jobs.all],
  );
}
