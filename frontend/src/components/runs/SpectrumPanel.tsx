import { useMemo } from "react";

import type { SeriesRead } from "../../api/types";
import { SPECTRA_SHOWN, type RunSpectra } from "../../hooks/useRunSpectra";
import { spectrumLines } from "../../lib/spectrum";
import { SpectrumChart } from "../charts/SpectrumChart";
import { LabelSearch } from "../common/LabelSearch";
import { EmptyState, QueryResult } from "../common/Status";

/**
 * The percentile spectra of a run's series, all trials merged: the first few, or those whose
 * labels hold the words searched for (useRunSpectra).
 */
export function SpectrumPanel({ series, view }: { series: SeriesRead[]; view: RunSpectra }) {
  const { matching, drawn, spectra } = view;
  const lines = useMemo(() => spectrumLines(spectra.data), [spectra.data]);
  return (
    <>
      {series.length > SPECTRA_SHOWN && (
        <div className="toolbar" role="search" aria-label="Series in the spectrum">
          <LabelSearch label="Series" value={view.search} onChange={view.setSearch} />
          <span className="muted small" aria-live="polite">
            {matching.length > SPECTRA_SHOWN
              ? `the first ${String(SPECTRA_SHOWN)} of ${String(matching.length)} matching ` +
                "series drawn"
              : `${String(matching.length)} of ${String(series.length)} series drawn`}
          </span>
        </div>
      )}
      {drawn.length === 0 ? (
        <EmptyState title="No series match">No series of this run has these labels.</EmptyState>
      ) : (
        <QueryResult
          query={spectra}
          loading="Loading spectrum…"
          title="Could not load the spectrum"
          isEmpty={(data) => data.every((spectrum) => spectrum.corrected.length === 0)}
          empty={<EmptyState title="No percentile data for this run" />}
        >
          {() => <SpectrumChart lines={lines} />}
        </QueryResult>
      )}
    </>
  );
}
