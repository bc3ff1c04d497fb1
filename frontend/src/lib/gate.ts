/**
 * The CI gate's evidence against a window of history, as the run page shows it: what the
 * window was, where the candidate fell against its centre and bound, and how small a change
 * the window lets the gate see with the run's own trial count.
 */

import type { GateEvidence } from "../api/types";

/** The change every gated metric should be able to show: 10 %. */
export const WANTED_CHANGE = 0.1;

export interface Detectable {
  /** The smallest relative change the gate sees four times in five. */
  value: number;
  trials: number;
  /** True when `trials` is not one of those the gate reported (1, 3, 5) and was estimated. */
  estimated: boolean;
}

/**
 * The smallest change a window lets the gate see with `trials` candidate trials. The gate
 * reports it for 1, 3 and 5 trials; for other counts it follows from them, since the
 * prediction's spread on the log scale is a + b / trials: the reach r = log(1 + change) (or
 * -log(1 - change) for a higher-is-better metric) has r^2 linear in 1 / trials. The gate
 * never reports less than its minimum effect: a value held at that floor (equal for 3 and 5
 * trials, or above what 1 and 3 predict for 5) stays there.
 */
export function smallestChangeAt(evidence: GateEvidence, trials: number): Detectable | null {
  const given = Object.entries(evidence.smallest_change)
    .map(([count, value]) => ({ count: Number(count), value }))
    .filter((item) => Number.isFinite(item.count) && item.count > 0 && Number.isFinite(item.value))
    .sort((a, b) => a.count - b.count);
  if (given.length === 0 || trials < 1) return null;
  const exact = given.find((item) => item.count === trials);
  if (exact) return { value: exact.value, trials, estimated: false };

  const higher = evidence.bound < evidence.centre;
  const reach = (change: number) => (higher ? -Math.log(1 - change) : Math.log(1 + change));
  const change = (r: number) => (higher ? 1 - Math.exp(-r) : Math.exp(r) - 1);
  const fewer = given.filter((item) => item.count < trials);
  // The most trials given below `trials`: an upper bound, since more trials never need a
  // larger change.
  const bound = fewer[fewer.length - 1] ?? given[0]!;
  const [one, three, five] = [1, 3, 5].map((count) => given.find((item) => item.count === count));
  const unfloored = one && three && one.value > three.value && (!five || three.value > five.value);
  if (!one || !three || !unfloored) {
    // Held at the floor (or too little to fit): the nearest fewer trials' value.
    return { value: bound.value, trials, estimated: true };
  }
  const r1 = reach(one.value) ** 2;
  const r3 = reach(three.value) ** 2;
  const b = (r1 - r3) * 1.5;
  const a = r1 - b;
  const fitted = (count: number) => change(Math.sqrt(Math.max(0, a + b / count)));
  const floor = five !== undefined && five.value > fitted(5) * (1 + 1e-6) ? five.value : 0;
  return { value: Math.max(fitted(trials), floor), trials, estimated: true };
}

/**
 * A gated metric whose window cannot show a `WANTED_CHANGE` with the run's own trials: the
 * smallest change it lets the gate see, or null when it can.
 */
export function blindSpot(evidence: GateEvidence, wanted = WANTED_CHANGE): Detectable | null {
  const detectable = smallestChangeAt(evidence, evidence.trials);
  return detectable !== null && detectable.value > wanted ? detectable : null;
}

/** Which side of its window's centre a metric fails on: above for lower-is-better ones. */
export function failsAbove(evidence: Pick<GateEvidence, "bound" | "centre">): boolean {
  return evidence.bound >= evidence.centre;
}
