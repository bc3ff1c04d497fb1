/**
 * Where the runs a URL names live, when the session's project does not have them: a shared
 * link (a run, a comparison, a trend, an alert's links in Slack) opens in the runs' project
 * when the user may use it, and says so plainly when they may not.
 */

/** What GET /runs/{id}/project answered for one run. */
export type RunLookup =
  | { runId: number; state: "pending" }
  | { runId: number; state: "found"; project: string }
  /** A 404: the run is in no project the user may use (or does not exist). */
  | { runId: number; state: "nowhere" }
  /** Another error: where the run lives is not known. */
  | { runId: number; state: "failed" };

export type RunsHome =
  | { kind: "looking" }
  /** Every run is in this one other project: the session switches to it. */
  | { kind: "switch"; project: string }
  /** Every run is in this one other project, but the user left it (or opened the URL there):
   * the page names it rather than switching back. */
  | { kind: "elsewhere"; project: string; runIds: number[] }
  /** These runs are in no project the user may use. */
  | { kind: "nowhere"; runIds: number[] }
  /** The runs are in different projects: no one project shows them together. */
  | { kind: "split"; homes: { runId: number; project: string }[] }
  /** All in the current project (what was missing is something else), or a lookup failed:
   * the page says what it says without the lookup. */
  | { kind: "unknown" };

/** Where the runs live, from their lookups and the session's project slug. */
export function runsHome(lookups: RunLookup[], current: string | undefined): RunsHome {
  if (current === undefined || lookups.some((lookup) => lookup.state === "pending"))
    return { kind: "looking" };
  const nowhere = lookups.filter((lookup) => lookup.state === "nowhere");
  if (nowhere.length > 0) return { kind: "nowhere", runIds: nowhere.map((l) => l.runId) };
  const homes = lookups.flatMap((lookup) =>
    lookup.state === "found" ? [{ runId: lookup.runId, project: lookup.project }] : [],
  );
  if (homes.length < lookups.length || homes.length === 0) return { kind: "unknown" };
  const projects = new Set(homes.map((home) => home.project));
  if (projects.size > 1) return { kind: "split", homes };
  const [project] = projects;
  return project === undefined || project === current
    ? { kind: "unknown" }
    : { kind: "switch", project };
}

/** A visit of a URL (a browser history entry): the project it was first shown in, and whether
 * the session was switched from there to the runs' project. */
export interface RunsVisit {
  project: string;
  switched: boolean;
}

/**
 * Whether a visit may switch the session to the runs' project: once, from the project the URL
 * was opened in. A user who then chooses another project in the switcher stays there (the
 * page remounts, misses the runs again and names their project instead of switching back).
 */
export function maySwitch(visit: RunsVisit | undefined, current: string | undefined): boolean {
  return visit === undefined || (!visit.switched && visit.project === current);
}

/** "Run #103", "Runs #103 and #104", "Runs #1, #2 and #3". */
export function runsText(runIds: number[]): string {
  const names = runIds.map((id) => `#${String(id)}`);
  if (names.length <= 1) return `Run ${names.join("")}`;
  return `Runs ${names.slice(0, -1).join(", ")} and ${names[names.length - 1] ?? ""}`;
}

/** The missing state's title and text for a lookup that ended without a project to open. */
export function runsHomeMessage(home: RunsHome): { title: string; text: string } | null {
  switch (home.kind) {
    case "nowhere": {
      const one = home.runIds.length === 1;
      const they = one
        ? "It may have been deleted, or it belongs"
        : "They may have been deleted, or they belong";
      return {
        title:
          `${runsText(home.runIds)} ${one ? "is" : "are"} not in this project, ` +
          "nor in any project you belong to.",
        text: `${they} to a project you are not a member of: an admin can add you to it.`,
      };
    }
    case "elsewhere": {
      const one = home.runIds.length === 1;
      const is = one ? "is" : "are";
      return {
        title: `${runsText(home.runIds)} ${is} in project ${home.project}, not here`,
        text: `Choose ${home.project} in the project switcher to see ${one ? "it" : "them"}.`,
      };
    }
    case "split":
      return {
        title: "These runs are in different projects",
        text: `${home.homes
          .map((item, i) => `${i === 0 ? "R" : "r"}un #${String(item.runId)} is in ${item.project}`)
          .join(", ")}: no one project shows them together.`,
      };
    default:
      return null;
  }
}
