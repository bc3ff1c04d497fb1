import { describe, expect, it } from "vitest";

import type { FrameDelta } from "../api/types";
import {
  ancestry,
  changedFrames,
  diffColour,
  diffTree,
  findFrame,
  flameTree,
  formatShare,
  formatShareDelta,
  frameColour,
  frameFills,
  frameSummary,
  layoutFrames,
  maxSelfShareDelta,
  searchFrames,
  searchSummary,
  selfShareDelta,
  share,
  type FlameTree,
} from "./flamegraph";
import { parseFolded, profileName, stacksFromSpeedscope } from "./profiles";

// The backend's own example (backend/tests/test_profiles_api.py): the candidate spins in a new
// function for 120 of its 200 samples (its baseline: parse 50, respond 50).
const AFTER =
  "main;serve;parse 40\nmain;serve;respond 30\nmain;serve;respond 10\nmain;serve;spin 120\n";

function frame(tree: FlameTree, id: string) {
  const found = findFrame(tree, id);
  if (!found) throw new Error(`no frame ${id}`);
  return found;
}

/** Boxes as [id, x, width] rounded, the ancestors marked with a "^". */
function boxes(tree: FlameTree, focusId: string, minWidth = 0) {
  return layoutFrames(frame(tree, focusId), minWidth).map((box) => [
    `${box.ancestor ? "^" : ""}${box.node.id || "all"}`,
    Number(box.x.toFixed(4)),
    Number(box.width.toFixed(4)),
  ]);
}

describe("reading profiles", () => {
  it("parses folded stacks, merging none and skipping blank lines", () => {
    expect(parseFolded("main;serve 10\n\nmain 2\n")).toEqual([
      { frames: ["main", "serve"], samples: 10 },
      { frames: ["main"], samples: 2 },
    ]);
    expect(() => parseFolded("main;serve 10\nmain;serve ten\n")).toThrow(/line 2/);
    expect(() => parseFolded("main\n")).toThrow(/line 1/);
  });

  it("reads the API's speedscope document into the same tree as its folded text", () => {
    // What backend/latlab/runs/profiles.py writes for AFTER: heaviest stack first.
    const document = {
      shared: { frames: ["main", "serve", "spin", "parse", "respond"].map((name) => ({ name })) },
      profiles: [
        {
          type: "sampled",
          samples: [
            [0, 1, 2],
            [0, 1, 3],
            [0, 1, 4],
          ],
          weights: [120, 40, 40],
        },
      ],
    };
    const fromSpeedscope = flameTree(stacksFromSpeedscope(document));
    const fromFolded = flameTree(parseFolded(AFTER));
    expect(boxes(fromSpeedscope, "")).toEqual(boxes(fromFolded, ""));
    expect(() => stacksFromSpeedscope({ shared: { frames: [] } })).toThrow(/speedscope/);
    expect(() =>
      stacksFromSpeedscope({
        shared: { frames: [] },
        profiles: [{ samples: [[0]], weights: [1] }],
      }),
    ).toThrow(/names no frame/);
  });
});

describe("a flame graph", () => {
  const tree = flameTree(parseFolded(AFTER));

  it("merges stacks and gives each frame its share of the samples", () => {
    expect(tree.total).toBe(200);
    expect(tree.height).toBe(4);
    // The two respond lines are one frame: 30 + 10 = 40 of 200.
    expect(frame(tree, "main;serve;respond").value).toBe(40);
    expect(share(frame(tree, "main;serve;respond"), tree)).toBeCloseTo(0.2);
    expect(share(frame(tree, "main;serve;spin"), tree)).toBeCloseTo(0.6);
    expect(share(frame(tree, "main;serve"), tree)).toBe(1);
    expect(frame(tree, "main;serve").self).toBe(0);
    expect(frame(tree, "main;serve").children.map((child) => child.name)).toEqual([
      "parse",
      "respond",
      "spin",
    ]);
  });

  it("lays callees out under their caller, by name, as wide as their share", () => {
    expect(boxes(tree, "")).toEqual([
      ["all", 0, 1],
      ["main", 0, 1],
      ["main;serve", 0, 1],
      ["main;serve;parse", 0, 0.2],
      ["main;serve;respond", 0.2, 0.2],
      ["main;serve;spin", 0.4, 0.6],
    ]);
  });

  it("leaves a caller's own samples as a gap after its callees", () => {
    // main: 100 samples, 10 of them its own; a 30, b 60 (through c).
    const gaps = flameTree(parseFolded("main;a 30\nmain 10\nmain;b;c 60\n"));
    expect(frame(gaps, "main").self).toBe(10);
    expect(boxes(gaps, "")).toEqual([
      ["all", 0, 1],
      ["main", 0, 1],
      ["main;a", 0, 0.3],
      ["main;b", 0.3, 0.6],
      ["main;b;c", 0.3, 0.6],
    ]);
    // Frames narrower than asked are left out, with their callees.
    expect(boxes(gaps, "", 0.35).map(([id]) => id)).toEqual(["all", "main", "main;b", "main;b;c"]);
  });

  it("zooms: the frame fills the width, its ancestors stay above it, its siblings go", () => {
    expect(boxes(tree, "main;serve;spin")).toEqual([
      ["^all", 0, 1],
      ["^main", 0, 1],
      ["^main;serve", 0, 1],
      ["main;serve;spin", 0, 1],
    ]);
    const gaps = flameTree(parseFolded("main;a 30\nmain 10\nmain;b;c 45\nmain;b;d 15\n"));
    expect(boxes(gaps, "main;b")).toEqual([
      ["^all", 0, 1],
      ["^main", 0, 1],
      ["main;b", 0, 1],
      ["main;b;c", 0, 0.75],
      ["main;b;d", 0.75, 0.25],
    ]);
    expect(ancestry(frame(gaps, "main;b;d")).map((node) => node.name)).toEqual([
      "all",
      "main",
      "b",
      "d",
    ]);
  });

  it("searches frame names in any case and counts each sample once", () => {
    const spin = searchFrames(tree, "SPIN");
    expect([...spin!.ids]).toEqual(["main;serve;spin"]);
    expect(spin!.samples).toBe(120);
    expect(spin!.share).toBeCloseTo(0.6);
    // "r" is in serve, parse and respond: every sample has serve, so 100%, not 180%.
    const r = searchFrames(tree, "r");
    expect(new Set(r!.ids)).toEqual(
      new Set(["main;serve", "main;serve;parse", "main;serve;respond"]),
    );
    expect(r!.share).toBe(1);
    // A recursion: f twice on one stack of 30 samples out of 100.
    const recursive = flameTree(parseFolded("main;f;g;f 30\nmain;h 70\n"));
    const f = searchFrames(recursive, "f");
    expect(f!.ids.size).toBe(2);
    expect(f!.samples).toBe(30);
    expect(f!.share).toBeCloseTo(0.3);
    // The root is not a frame of the program.
    expect(searchFrames(tree, "all")!.samples).toBe(0);
    expect(searchSummary(spin!)).toBe("matched 60.0% of the samples (120) in 1 frame");
    expect(searchSummary(f!)).toBe("matched 30.0% of the samples (30) in 2 frames");
    expect(searchSummary(searchFrames(tree, "nothing")!)).toBe("no frame matches");
    expect(searchFrames(tree, "  ")).toBeNull();
  });

  it("says what a frame is: name, samples and share", () => {
    expect(frameSummary(frame(tree, "main;serve;spin"), tree)).toBe(
      "spin: 120 samples, 60.0%, 60.0% on the CPU itself",
    );
    expect(frameSummary(frame(tree, "main;serve"), tree)).toBe("serve: 200 samples, 100.0%");
  });

  it("colours a frame by its name, in warm colours", () => {
    expect(frameColour("spin")).toBe(frameColour("spin"));
    expect(frameColour("spin")).not.toBe(frameColour("parse"));
    const [r, g, b] = frameColour("main").match(/\d+/g)!.map(Number);
    expect(r).toBeGreaterThanOrEqual(205);
    expect(g).toBeLessThanOrEqual(230);
    expect(b).toBeLessThanOrEqual(55);
  });
});

describe("a differential flame graph", () => {
  // The API's stacks for BEFORE -> AFTER (test_two_runs_profiles_compare_frame_by_frame).
  const stacks = [
    { frames: ["main", "serve", "spin"], baseline: 0, candidate: 120 },
    { frames: ["main", "serve", "parse"], baseline: 50, candidate: 40 },
    { frames: ["main", "serve", "respond"], baseline: 50, candidate: 40 },
  ];
  const tree = diffTree(stacks, { baseline: 100, candidate: 200 });

  it("draws the candidate's shares and compares self shares after normalising", () => {
    expect(share(frame(tree, "main;serve;spin"), tree)).toBeCloseTo(0.6);
    // spin: 0/100 -> 120/200; parse: 50/100 -> 40/200; serve: never a leaf.
    expect(selfShareDelta(frame(tree, "main;serve;spin"), tree)).toBeCloseTo(0.6);
    expect(selfShareDelta(frame(tree, "main;serve;parse"), tree)).toBeCloseTo(-0.3);
    expect(selfShareDelta(frame(tree, "main;serve"), tree)).toBe(0);
    expect(maxSelfShareDelta(tree)).toBeCloseTo(0.6);
    // Twice the samples is not growth: the same stacks in proportion change nothing.
    const doubled = diffTree(
      [{ frames: ["main", "work"], baseline: 50, candidate: 100 }],
      { baseline: 50, candidate: 100 },
    );
    expect(selfShareDelta(frame(doubled, "main;work"), doubled)).toBe(0);
  });

  it("colours growth red and shrinkage blue, scaled to the largest change", () => {
    const max = maxSelfShareDelta(tree);
    expect(diffColour(selfShareDelta(frame(tree, "main;serve;spin"), tree), max)).toBe(
      "rgb(220, 38, 38)",
    );
    // Half the largest change: halfway from grey (236, 236, 236) to blue (37, 99, 235).
    expect(diffColour(-0.3, 0.6)).toBe("rgb(137, 168, 236)");
    expect(diffColour(0, 0.6)).toBe("rgb(236, 236, 236)");
    expect(diffColour(0.0001, 0.6)).toBe("rgb(236, 236, 236)");
    expect(diffColour(0.2, 0)).toBe("rgb(236, 236, 236)");
    const fills = frameFills(tree);
    expect(fills.get(frame(tree, "main;serve;spin"))).toEqual({
      colour: "rgb(220, 38, 38)",
      change: "grew",
    });
    expect(fills.get(frame(tree, "main;serve;parse"))).toEqual({
      colour: "rgb(137, 168, 236)",
      change: "shrank",
    });
    expect(fills.get(frame(tree, "main;serve"))?.change).toBe("unchanged");
    // One profile: by name, no change.
    const plain = flameTree([{ frames: ["main"], samples: 1 }]);
    expect(frameFills(plain).get(frame(plain, "main"))).toEqual({ colour: frameColour("main") });
  });

  it("keeps shares of the whole profile when the API left light stacks out", () => {
    const partial = diffTree(stacks, { baseline: 100, candidate: 250 });
    expect(partial.root.value).toBe(250);
    expect(share(frame(partial, "main;serve;spin"), partial)).toBeCloseTo(0.48);
    expect(boxes(partial, "").at(-1)).toEqual(["main;serve;spin", 0.32, 0.48]);
  });

  it("does not draw a stack only the baseline has, but counts it in the baseline", () => {
    const gone = diffTree(
      [...stacks, { frames: ["main", "old"], baseline: 20, candidate: 0 }],
      { baseline: 120, candidate: 200 },
    );
    expect(boxes(gone, "").map(([id]) => id)).not.toContain("main;old");
    expect(selfShareDelta(frame(gone, "main;old"), gone)).toBeCloseTo(-20 / 120);
    expect(gone.height).toBe(4);
  });

  it("says a frame's shares on both sides and its change", () => {
    expect(frameSummary(frame(tree, "main;serve;spin"), tree)).toBe(
      "spin: 60.0% of the candidate (120 samples), 0% of the baseline; self share +60.0 pp (grew)",
    );
    expect(frameSummary(frame(tree, "main;serve;parse"), tree)).toBe(
      "parse: 20.0% of the candidate (40 samples), 50.0% of the baseline; " +
        "self share −30.0 pp (shrank)",
    );
  });

  it("lists the frames whose self share changed most, unchanged ones left out", () => {
    const frames: FrameDelta[] = [
      ["spin", 0, 0.6, 0, 0.6],
      ["parse", 0.5, 0.2, 0.5, 0.2],
      ["respond", 0.5, 0.2, 0.5, 0.2],
      ["serve", 0, 0, 1, 1],
    ].map(([name, bs, cs, bt, ct]) => ({
      frame: name as string,
      baseline_self: bs as number,
      candidate_self: cs as number,
      self_delta: (cs as number) - (bs as number),
      baseline_total: bt as number,
      candidate_total: ct as number,
      total_delta: (ct as number) - (bt as number),
    }));
    expect(changedFrames(frames)).toEqual([
      {
        frame: "spin",
        baseline: "0%",
        candidate: "60.0%",
        change: "+60.0 pp",
        direction: "grew",
        totalChange: "+60.0 pp",
      },
      {
        frame: "parse",
        baseline: "50.0%",
        candidate: "20.0%",
        change: "−30.0 pp",
        direction: "shrank",
        totalChange: "−30.0 pp",
      },
      {
        frame: "respond",
        baseline: "50.0%",
        candidate: "20.0%",
        change: "−30.0 pp",
        direction: "shrank",
        totalChange: "−30.0 pp",
      },
    ]);
    expect(changedFrames(frames, 1).map((row) => row.frame)).toEqual(["spin"]);
  });
});

describe("profiles by name", () => {
  it("names a profile by its series, program, tool and samples", () => {
    expect(
      profileName({ labels: { client: "rust" }, program: "server", tool: "perf", samples: 1200 }),
    ).toBe("client=rust · server · perf, 1,200 samples");
    expect(profileName({ labels: {}, program: "client" })).toBe("(all) · client");
  });
});

describe("shares as text", () => {
  it("writes shares and their changes", () => {
    expect(formatShare(0.6)).toBe("60.0%");
    expect(formatShare(0.0004)).toBe("0.04%");
    expect(formatShare(0)).toBe("0%");
    expect(formatShareDelta(0.6)).toBe("+60.0 pp");
    expect(formatShareDelta(-0.3)).toBe("−30.0 pp");
    expect(formatShareDelta(0.0001)).toBe("±0 pp");
  });
});
