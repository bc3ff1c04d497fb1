import { useEffect } from "react";
import { useLocation } from "react-router";

import { useMe } from "../api/auth";
import { ApiError } from "../api/client";
import { useSwitchProject } from "../api/projects";
import { useRunProjects } from "../api/runs";
import { maySwitch, runsHome, type RunLookup, type RunsHome, type RunsVisit } from "../lib/runHome";

/** A query's error is the API's 404: what it asked for is not in the session's project. */
export function isNotFound(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404;
}

/** Each visit of a URL by its history entry's key; kept across the page's remount in another
 * project (the layout remounts pages on a switch). */
const visits = new Map<string, RunsVisit>();

/**
 * A URL naming runs (a run, a comparison, a trend) opened while the session shows another
 * project: once the page finds a run `missing` (a 404), asks where each of `runIds` lives;
 * when all are in one other project the user may use, the session switches to it (the page
 * remounts there and finds them) — once per visit, from the project the URL was opened in.
 * Returns null while nothing is missing, else where the runs are, for the page's missing state
 * (MissingRuns).
 */
export function useOpenInRunProject(runIds: number[], missing: boolean): RunsHome | null {
  const ids = [...new Set(runIds)];
  const results = useRunProjects(ids, missing);
  const me = useMe();
  const { key } = useLocation();
  const switchProject = useSwitchProject();
  const current = me.data?.project?.slug;
  const lookups = ids.map((runId, index): RunLookup => {
    const result = results[index];
    if (result?.data !== undefined) return { runId, state: "found", project: result.data.project };
    if (result?.isError) return { runId, state: isNotFound(result.error) ? "nowhere" : "failed" };
    return { runId, state: "pending" };
  });
  let home = missing ? runsHome(lookups, current) : null;
  if (home?.kind === "switch" && !maySwitch(visits.get(key), current))
    home = { kind: "elsewhere", project: home.project, runIds: ids };
  const target = home?.kind === "switch" ? home.project : undefined;
  const { isIdle, mutate } = switchProject;
  useEffect(() => {
    if (current !== undefined && !visits.has(key))
      visits.set(key, { project: current, switched: false });
  }, [key, current]);
  useEffect(() => {
    if (target === undefined || !isIdle) return;
    const visit = visits.get(key);
    if (visit) visit.switched = true;
    mutate(target);
  }, [key, target, isIdle, mutate]);
  if (home?.kind === "switch" && switchProject.isError) return { kind: "unknown" };
  return home;
}
