/**
 * A profile as the dashboard reads it: its stacks, from folded text or a speedscope document
 * (the API's two formats), and its name in a picker. `lib/flamegraph` merges stacks into a
 * tree.
 */

import { formatLabels, stringLabels } from "./format";

/** One stack, root first, and how many samples had it. */
export interface WeightedStack {
  frames: string[];
  samples: number;
}

/** Folded text (`frame;frame;frame count` per line) as stacks; blank lines are skipped. */
export function parseFolded(text: string): WeightedStack[] {
  const stacks: WeightedStack[] = [];
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (line === "") return;
    const space = line.lastIndexOf(" ");
    const samples = Number(line.slice(space + 1));
    if (space < 1 || !Number.isSafeInteger(samples) || samples < 0) {
      throw new Error(`line ${String(index + 1)} is not "frame;frame count"`);
    }
    stacks.push({ frames: line.slice(0, space).split(";"), samples });
  });
  return stacks;
}

/**
 * A speedscope document's first profile as stacks: `shared.frames[i].name`, and its
 * `samples` (frame indices, root first) weighted by `weights`. Throws on another shape.
 */
export function stacksFromSpeedscope(document: unknown): WeightedStack[] {
  const doc = document as {
    shared?: { frames?: unknown };
    profiles?: { samples?: unknown; weights?: unknown }[];
  } | null;
  const frames = doc?.shared?.frames;
  const profile = Array.isArray(doc?.profiles) ? doc.profiles[0] : undefined;
  if (
    !Array.isArray(frames) ||
    !profile ||
    !Array.isArray(profile.samples) ||
    !Array.isArray(profile.weights) ||
    profile.samples.length !== profile.weights.length
  ) {
    throw new Error("not a sampled speedscope profile");
  }
  const names = frames.map((frame: unknown) => String((frame as { name?: unknown }).name));
  return (profile.samples as unknown[]).map((sample, index) => {
    if (!Array.isArray(sample)) throw new Error(`sample ${String(index)} is not a stack`);
    return {
      frames: sample.map((frame: unknown) => {
        const name = typeof frame === "number" ? names[frame] : undefined;
        if (name === undefined) throw new Error(`sample ${String(index)} names no frame`);
        return name;
      }),
      samples: Number((profile.weights as unknown[])[index]),
    };
  });
}

/** "client=rust · server · perf, 200 samples": which profile, as a picker lists it. */
export function profileName(profile: {
  labels: Record<string, unknown>;
  program: string;
  tool?: string;
  samples?: number;
}): string {
  const labels = formatLabels(
    stringLabels(profile.labels),
  );
  const tool = profile.tool === undefined ? "" : ` · ${profile.tool}`;
  const samples =
    profile.samples === undefined
      ? ""
      : `, ${profile.samples.toLocaleString("en-US")} sample${profile.samples === 1 ? "" : "s"}`;
  return `${labels} · ${profile.program}${tool}${samples}`;
}
