import { describe, expect, it } from "vitest";

import { maySwitch, runsHome, runsHomeMessage, runsText, type RunLookup } from "./runHome";

const found = (runId: number, project: string): RunLookup => ({ runId, state: "found", project });
const nowhere = (runId: number): RunLookup => ({ runId, state: "nowhere" });

describe("runsHome", () => {
  it("switches to the one other project every run is in", () => {
    expect(runsHome([found(7, "bravo"), found(8, "bravo")], "alpha")).toEqual({
      kind: "switch",
      project: "bravo",
    });
    expect(runsHome([found(7, "bravo")], "alpha")).toEqual({ kind: "switch", project: "bravo" });
  });

  it("is looking while a lookup or the session is pending", () => {
    expect(runsHome([found(7, "bravo"), { runId: 8, state: "pending" }], "alpha")).toEqual({
      kind: "looking",
    });
    expect(runsHome([found(7, "bravo")], undefined)).toEqual({ kind: "looking" });
  });

  it("names the runs in no project the user may use, before anything else", () => {
    expect(runsHome([found(7, "alpha"), nowhere(103)], "alpha")).toEqual({
      kind: "nowhere",
      runIds: [103],
    });
    expect(runsHome([nowhere(103), { runId: 8, state: "failed" }], "alpha")).toEqual({
      kind: "nowhere",
      runIds: [103],
    });
  });

  it("does not switch when the runs are in different projects (no loop between them)", () => {
    expect(runsHome([found(7, "alpha"), found(8, "bravo")], "alpha")).toEqual({
      kind: "split",
      homes: [
        { runId: 7, project: "alpha" },
        { runId: 8, project: "bravo" },
      ],
    });
  });

  it("learns nothing when the runs are here or a lookup failed", () => {
    expect(runsHome([found(7, "alpha")], "alpha")).toEqual({ kind: "unknown" });
    expect(runsHome([found(7, "bravo"), { runId: 8, state: "failed" }], "alpha")).toEqual({
      kind: "unknown",
    });
    expect(runsHome([], "alpha")).toEqual({ kind: "unknown" });
  });
});

describe("maySwitch", () => {
  it("switches once, from the project the URL was opened in", () => {
    expect(maySwitch(undefined, "alpha")).toBe(true);
    expect(maySwitch({ project: "alpha", switched: false }, "alpha")).toBe(true);
    // Switched to the runs' project, then the user chose alpha again: no switching back.
    expect(maySwitch({ project: "alpha", switched: true }, "alpha")).toBe(false);
    // Opened where the runs are, then the user chose another project.
    expect(maySwitch({ project: "bravo", switched: false }, "alpha")).toBe(false);
  });
});

describe("runsHomeMessage", () => {
  it("names the project of runs the user left", () => {
    expect(runsHomeMessage({ kind: "elsewhere", project: "bravo", runIds: [7, 8] })).toEqual({
      title: "Runs #7 and #8 are in project bravo, not here",
      text: "Choose bravo in the project switcher to see them.",
    });
  });

  it("says a run is in no project the user belongs to", () => {
    expect(runsHomeMessage({ kind: "nowhere", runIds: [103] })?.title).toBe(
      "Run #103 is not in this project, nor in any project you belong to.",
    );
    expect(runsHomeMessage({ kind: "nowhere", runIds: [103, 104] })?.title).toBe(
      "Runs #103 and #104 are not in this project, nor in any project you belong to.",
    );
  });

  it("names each run's project when they are in different ones", () => {
    expect(
      runsHomeMessage({
        kind: "split",
        homes: [
          { runId: 7, project: "alpha" },
          { runId: 8, project: "bravo" },
        ],
      }),
    ).toEqual({
      title: "These runs are in different projects",
      text: "Run #7 is in alpha, run #8 is in bravo: no one project shows them together.",
    });
  });

  it("has nothing to say while looking, switching or knowing nothing", () => {
    expect(runsHomeMessage({ kind: "looking" })).toBeNull();
    expect(runsHomeMessage({ kind: "switch", project: "bravo" })).toBeNull();
    expect(runsHomeMessage({ kind: "unknown" })).toBeNull();
  });
});

describe("runsText", () => {
  it("lists run ids", () => {
    expect(runsText([1])).toBe("Run #1");
    expect(runsText([1, 2, 3])).toBe("Runs #1, #2 and #3");
  });
});
