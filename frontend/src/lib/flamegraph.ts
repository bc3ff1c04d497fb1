/**
 * Flame graphs (Brendan Gregg's): a profile's stacks merged into a tree of frames, each frame
 * as wide as its share of the samples and its callees under it, siblings sorted by name (the
 * x axis is not time). Also zoom, search, and the differential flame graph of two profiles:
 * the candidate's stacks, each frame coloured by how much its self share grew or shrank
 * against the baseline, both sides normalised to shares of their own samples first. Pure
 * data; `components/charts/FlameGraph` draws it.
 */

import type { FrameDelta, StackDelta } from "../api/types";
import type { WeightedStack } from "./profiles";

/** A frame at one place in the tree (the same function called from two places is two). */
export interface FlameNode {
  /** Its path from the root, frames joined by ";" (folded stacks have no ";" in a frame). */
  id: string;
  name: string;
  /** 0 for the root ("all"), 1 for the stacks' first frames. */
  depth: number;
  /** Samples with this frame here on the stack, itself or its callees: the frame's width. */
  value: number;
  /** Samples with this frame here on the CPU (the stack's leaf). */
  self: number;
  /** The same two counts in the baseline (a differential tree; 0 otherwise). */
  baseline: number;
  baselineSelf: number;
  /** Sorted by name. */
  children: FlameNode[];
  parent: FlameNode | null;
}

export interface FlameTree {
  root: FlameNode;
  /** The samples shares divide: the profile's, or the candidate's in a differential tree. */
  total: number;
  /** The baseline's samples in a differential tree, null for one profile. */
  baselineTotal: number | null;
  /** Rows to draw: the deepest frame's depth + 1. */
  height: number;
}

/** Where a frame is drawn: its row is its depth; x and width are fractions of the width. */
export interface FrameBox {
  node: FlameNode;
  x: number;
  width: number;
  /** An ancestor of the frame zoomed into, drawn across the whole width. */
  ancestor: boolean;
}

export interface SearchResult {
  /** Ids of the frames whose name holds the text. */
  ids: ReadonlySet<string>;
  /** Samples with a matching frame anywhere on their stack (each sample counted once). */
  samples: number;
  share: number;
}

export type Change = "grew" | "shrank" | "unchanged";

/** How a frame is painted; in a differential tree, with the change its colour stands for. */
export interface FrameFill {
  colour: string;
  change?: Change;
}

export interface ChangedFrame {
  frame: string;
  baseline: string;
  candidate: string;
  change: string;
  direction: Change;
  totalChange: string;
}

/** A profile's frames are rooted at "all", as in flamegraph.pl. */
export const ROOT_NAME = "all";
/** A change of self share smaller than this (0.05 percentage points) reads as none. */
export const NEGLIGIBLE_SHARE = 0.0005;
const NEUTRAL: RGB = [236, 236, 236];
const GREW: RGB = [220, 38, 38];
const SHRANK: RGB = [37, 99, 235];

type RGB = [number, number, number];

/** One profile's tree: stacks with the same frames from the root merge. */
export function flameTree(stacks: readonly WeightedStack[]): FlameTree {
  const build = new TreeBuilder();
  for (const stack of stacks) build.add(stack.frames, stack.samples, 0);
  return build.finish(build.root.value, null);
}

/**
 * Two profiles' tree: the candidate's stacks with the baseline's samples alongside. The
 * totals are the profiles' own samples, which the API's stacks may fall short of (it leaves
 * the lightest out): shares stay shares of the whole profile.
 */
export function diffTree(
  stacks: readonly StackDelta[],
  totals: { baseline: number; candidate: number },
): FlameTree {
  const build = new TreeBuilder();
  for (const stack of stacks) build.add(stack.frames, stack.candidate, stack.baseline);
  const root = build.root;
  root.value = Math.max(root.value, totals.candidate);
  root.baseline = Math.max(root.baseline, totals.baseline);
  return build.finish(root.value, root.baseline);
}

/** The frame's share of the profile's (the candidate's) samples, 0-1. */
export function share(node: FlameNode, tree: FlameTree): number {
  return tree.total > 0 ? node.value / tree.total : 0;
}

/** Its share of the baseline's samples at the same place, 0-1 (0 for one profile). */
export function baselineShare(node: FlameNode, tree: FlameTree): number {
  return tree.baselineTotal ? node.baseline / tree.baselineTotal : 0;
}

/**
 * How much the frame's self share (samples with it here on the CPU) grew from the baseline to
 * the candidate, each a share of its own profile's samples: what a differential flame graph
 * colours (flamegraph.pl gives the difference to the stack's leaf frame, as here).
 */
export function selfShareDelta(node: FlameNode, tree: FlameTree): number {
  if (!tree.baselineTotal) return 0;
  const after = tree.total > 0 ? node.self / tree.total : 0;
  return after - node.baselineSelf / tree.baselineTotal;
}

/** The largest change of self share in the tree, either way: the colour scale's end. */
export function maxSelfShareDelta(tree: FlameTree): number {
  let max = 0;
  walk(tree.root, (node) => {
    max = Math.max(max, Math.abs(selfShareDelta(node, tree)));
  });
  return max;
}

export function changeOf(delta: number): Change {
  if (delta >= NEGLIGIBLE_SHARE) return "grew";
  if (delta <= -NEGLIGIBLE_SHARE) return "shrank";
  return "unchanged";
}

/**
 * A differential frame's fill: red as its self share grew, blue as it shrank, deeper the
 * nearer the change is to the largest of the graph; light grey for no change.
 */
export function diffColour(delta: number, maxDelta: number): string {
  if (changeOf(delta) === "unchanged" || maxDelta <= 0) return rgb(NEUTRAL);
  const t = Math.min(1, Math.abs(delta) / maxDelta);
  const end = delta > 0 ? GREW : SHRANK;
  return rgb(NEUTRAL.map((from, i) => from + (end[i]! - from) * t) as RGB);
}

/**
 * Every frame's fill: by its name in one profile; in a differential tree by the change of its
 * self share, scaled to the largest change of the tree.
 */
export function frameFills(tree: FlameTree): Map<FlameNode, FrameFill> {
  const fills = new Map<FlameNode, FrameFill>();
  const max = tree.baselineTotal === null ? 0 : maxSelfShareDelta(tree);
  walk(tree.root, (node) => {
    if (tree.baselineTotal === null) {
      fills.set(node, { colour: frameColour(node.name) });
    } else {
      const delta = selfShareDelta(node, tree);
      fills.set(node, { colour: diffColour(delta, max), change: changeOf(delta) });
    }
  });
  return fills;
}

/**
 * A frame's fill in a plain flame graph: flamegraph.pl's warm palette, picked by the frame's
 * name, so a function keeps its colour wherever it appears and across reloads.
 */
export function frameColour(name: string): string {
  const hash = fnv1a(name);
  const part = (shift: number) => ((hash >>> shift) & 0xff) / 255;
  return rgb([205 + 50 * part(0), 230 * part(8), 55 * part(16)]);
}

/**
 * The frames to draw when zoomed into `focus` (the root: not zoomed): its ancestors across the
 * whole width, it across the whole width, its callees by their share of it; frames narrower
 * than `minWidth` (a fraction of the width) are left out, and so are their callees.
 */
export function layoutFrames(focus: FlameNode, minWidth = 0): FrameBox[] {
  const boxes: FrameBox[] = ancestry(focus)
    .slice(0, -1)
    .map((node) => ({ node, x: 0, width: 1, ancestor: true }));
  const place = (node: FlameNode, x: number, width: number) => {
    boxes.push({ node, x, width, ancestor: false });
    if (node.value <= 0) return;
    let offset = x;
    for (const child of node.children) {
      const childWidth = (width * child.value) / node.value;
      if (childWidth > 0 && childWidth >= minWidth) place(child, offset, childWidth);
      offset += childWidth;
    }
  };
  place(focus, 0, 1);
  return boxes;
}

/** The root first, `node` last. */
export function ancestry(node: FlameNode): FlameNode[] {
  const path: FlameNode[] = [];
  for (let at: FlameNode | null = node; at !== null; at = at.parent) path.unshift(at);
  return path;
}

export function findFrame(tree: FlameTree, id: string): FlameNode | null {
  let found: FlameNode | null = null;
  walk(tree.root, (node) => {
    if (node.id === id) found = node;
  });
  return found;
}

/**
 * The frames whose name holds `text` (any case), and the share of the samples they cover:
 * a sample counts once however many matching frames its stack holds. Null for no text.
 */
export function searchFrames(tree: FlameTree, text: string): SearchResult | null {
  const needle = text.trim().toLowerCase();
  if (needle === "") return null;
  const ids = new Set<string>();
  let samples = 0;
  const visit = (node: FlameNode, covered: boolean) => {
    const match = node !== tree.root && node.name.toLowerCase().includes(needle);
    if (match) ids.add(node.id);
    if (match && !covered) samples += node.value;
    for (const child of node.children) visit(child, covered || match);
  };
  visit(tree.root, false);
  return { ids, samples, share: tree.total > 0 ? samples / tree.total : 0 };
}

/** "12.3%", "0.04%", "0%": a share (0-1) as people read it. */
export function formatShare(value: number): string {
  const pct = value * 100;
  if (pct === 0) return "0%";
  if (Math.abs(pct) < 0.1) return `${pct.toFixed(2)}%`;
  return `${pct.toFixed(1)}%`;
}

/** A change of share in percentage points, signed: "+60.0 pp", "−30.0 pp", "±0 pp". */
export function formatShareDelta(delta: number): string {
  if (changeOf(delta) === "unchanged") return "±0 pp";
  const magnitude = formatShare(Math.abs(delta)).replace("%", "");
  return `${delta > 0 ? "+" : "−"}${magnitude} pp`;
}

/** What hovering or focusing a frame says: its name, samples and share (and change). */
export function frameSummary(node: FlameNode, tree: FlameTree): string {
  if (tree.baselineTotal === null) {
    const own =
      node.self > 0 && node !== tree.root
        ? `, ${formatShare(node.self / tree.total)} on the CPU itself`
        : "";
    return `${node.name}: ${count(node.value)}, ${formatShare(share(node, tree))}${own}`;
  }
  const delta = selfShareDelta(node, tree);
  return (
    `${node.name}: ${formatShare(share(node, tree))} of the candidate (${count(node.value)}), ` +
    `${formatShare(baselineShare(node, tree))} of the baseline; ` +
    `self share ${formatShareDelta(delta)}${delta === 0 ? "" : ` (${changeOf(delta)})`}`
  );
}

/** "matched 60.0% of the samples (120) in 1 frame": what a search found. */
export function searchSummary(found: SearchResult): string {
  const frames = found.ids.size;
  if (frames === 0) return "no frame matches";
  return (
    `matched ${formatShare(found.share)} of the samples` +
    ` (${found.samples.toLocaleString("en-US")})` +
    ` in ${String(frames)} frame${frames === 1 ? "" : "s"}`
  );
}

/**
 * The frames whose self share changed most, in the API's order (largest change first), those
 * that did not change left out: the table beside a differential flame graph.
 */
export function changedFrames(frames: readonly FrameDelta[], limit = 20): ChangedFrame[] {
  return frames
    .filter((frame) => changeOf(frame.self_delta) !== "unchanged")
    .slice(0, limit)
    .map((frame) => ({
      frame: frame.frame,
      baseline: formatShare(frame.baseline_self),
      candidate: formatShare(frame.candidate_self),
      change: formatShareDelta(frame.self_delta),
      direction: changeOf(frame.self_delta),
      totalChange: formatShareDelta(frame.total_delta),
    }));
}

/** Builds a tree stack by stack, finding a frame's child by name in a map until `finish`. */
class TreeBuilder {
  readonly root: FlameNode = node(ROOT_NAME, "", 0, null);
  private readonly index = new Map<FlameNode, Map<string, FlameNode>>();
  private height = 1;

  add(frames: readonly string[], samples: number, baseline: number): void {
    let at = this.root;
    at.value += samples;
    at.baseline += baseline;
    for (const name of frames) {
      let byName = this.index.get(at);
      if (!byName) this.index.set(at, (byName = new Map()));
      let child = byName.get(name);
      if (!child) {
        child = node(name, at === this.root ? name : `${at.id};${name}`, at.depth + 1, at);
        byName.set(name, child);
        at.children.push(child);
      }
      at = child;
      at.value += samples;
      at.baseline += baseline;
    }
    at.self += samples;
    at.baselineSelf += baseline;
    if (samples > 0) this.height = Math.max(this.height, frames.length + 1);
  }

  finish(total: number, baselineTotal: number | null): FlameTree {
    walk(this.root, (at) => at.children.sort(byName));
    return { root: this.root, total, baselineTotal, height: this.height };
  }
}

function byName(a: FlameNode, b: FlameNode): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function node(name: string, id: string, depth: number, parent: FlameNode | null): FlameNode {
  return { id, name, depth, value: 0, self: 0, baseline: 0, baselineSelf: 0, children: [], parent };
}

/** Every node, parents before children (iterative: stacks can be deep). */
function walk(root: FlameNode, visit: (node: FlameNode) => void): void {
  const pending = [root];
  for (let at = pending.pop(); at !== undefined; at = pending.pop()) {
    visit(at);
    for (const child of at.children) pending.push(child);
  }
}

function count(samples: number): string {
  return `${samples.toLocaleString("en-US")} sample${samples === 1 ? "" : "s"}`;
}

function rgb([r, g, b]: RGB): string {
  return `rgb(${String(Math.round(r))}, ${String(Math.round(g))}, ${String(Math.round(b))})`;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
