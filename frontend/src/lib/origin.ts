/** Where a summary statistic came from, as the API says (`reported`, `interpolated`). */

export interface Origin {
  reported: readonly string[];
  interpolated: readonly string[];
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
