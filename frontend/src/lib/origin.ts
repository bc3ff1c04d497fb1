/** Where a summary statistic came from, as the API says (`reported`, `interpolated`). */

import { formatNs } from "./units";

export interface Origin {
  reported: readonly string[];
  interpolated: readonly string[];
  /** The step the harness printed latency in (ApacheBench: 1 ms); null: the lab's own. */
  resolution_ns?: number | null;
}

/**
 * A latency as precise as its harness printed it: ApacheBench prints whole milliseconds, so
 * its 0 is "< 1 ms", never "0 ns".
 */
export function formatLatency(ns: number | null | undefined, origin: Origin): string {
  const step = origin.resolution_ns;
  if (step != null && ns != null && ns < step) return `< ${formatNs(step)}`;
  return formatNs(ns);
}

export interface OriginNote {
  /** Shown before the value: "~" for an interpolated one, "" otherwise. */
  mark: string;
  /** Said on hover and to screen readers. */
  note: string;
}

/**
 * The harness printed this statistic itself (the lab shows its number), or the lab computed it
 * from a histogram rebuilt from the percentiles the harness printed (interpolated between
 * them); null when the lab computed it from the whole distribution.
 */
export function originNote(key: string, origin: Origin): OriginNote | null {
  if (origin.reported.includes(key)) {
    return { mark: "", note: "as the benchmark harness printed it" };
  }
  if (origin.interpolated.includes(key)) {
    return {
      mark: "~",
      note: "interpolated: the harness printed only some percentiles, and this one lies between them",
    };
  }
  return null;
}
