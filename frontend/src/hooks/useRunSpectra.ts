import { useMemo, useState } from "react";

import { useSpectra, type SpectraResult } from "../api/runs";
import type { SeriesRead } from "../api/types";
import { labelsMatch, stringLabels } from "../lib/format";

// The spectra drawn at once: more lines than this cannot be told apart, and a run of 400
// series would ask 400 of them.
export const SPECTRA_SHOWN = 12;

/** The spectra a run's page draws: of the first few series, or those a label search finds. */
export interface RunSpectra {
  search: string;
  setSearch: (search: string) => void;
  /** The series the search finds (all of them while it is blank). */
  matching: SeriesRead[];
  /** Those drawn, the first few. */
  drawn: SeriesRead[];
  /** The drawn series' spectra, all trials merged, in one request. */
  spectra: SpectraResult;
}

export function useRunSpectra(runId: number, series: SeriesRead[]): RunSpectra {
  const [search, setSearch] = useState("");
  const matching = useMemo(
    () => series.filter((item) => labelsMatch(stringLabels(item.labels), search)),
    [series, search],
  );
  const drawn = matching.slice(0, SPECTRA_SHOWN);
  const spectra = useSpectra(runId, drawn.map((item) => item.id));
  return { search, setSearch, matching, drawn, spectra };
}
