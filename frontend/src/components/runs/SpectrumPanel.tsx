import { useMemo, useState } from "react";

import { errorMessage } from "../../api/client";
import { useSpectra } from "../../api/runs";
import type { SeriesRead } from "../../api/types";
import { labelsMatch, stringLabels } from "../../lib/format";
import { spectrumLines } from "../../lib/spectrum";
import { SpectrumChart } from "../charts/SpectrumChart";
import { EmptyState, ErrorState, Loading } from "../common/Status";
import { LabelSearch } from "../common/LabelSearch";

// The spectra drawn at once: more lines than this cannot be told apart, and a run of 400
// series would ask 400 of them.
const SHOWN = 12;

/**
 * The percentile spectra of a run's series, all trials merged: the first few, or those whose
 * labels hold the words searched for, in one request.
 */
export function SpectrumPanel({ runId, series }: { runId: number; series: SeriesRead[] }) {
  const [search, setSearch] = useState("");
  const matching = useMemo(
    () => series.filter((item) => labelsMatch(stringLabels(item.labels), search)),
    [series, search],
  );
  const drawn = matching.slice(0, SHOWN);
  return (
    <>
      {series.length > SHOWN && (
        <div className="toolbar" role="search" aria-label="Series in the spectrum">
          <LabelSearch label="Series" value={search} onChange={setSearch} />
          <span className="muted small" aria-live="polite">
            {matching.length > SHOWN
              ? `the first ${String(SHOWN)} of ${String(matching.length)} matching series drawn`
              : `${String(matching.length)} of ${String(series.length)} series drawn`}
          </span>
        </div>
      )}
      {drawn.length === 0 ? (
        <EmptyState title="No series match">No series of this run has these labels.</EmptyState>
      ) : (
        <Spectra runId={runId} seriesIds={drawn.map((item) => item.id)} />
      )}
    </>
  );
}

function Spectra({ runId, seriesIds }: { runId: number; seriesIds: number[] }) {
  const spectra = useSpectra(runId, seriesIds);
  const lines = useMemo(() => spectrumLines(spectra.data), [spectra.data]);
  if (spectra.error) {
    return <ErrorState title="Could not load the spectrum" message={errorMessage(spectra.error)} />;
  }
  if (spectra.isPending) return <Loading label="Loading spectrum…" />;
  if (spectra.data.every((spectrum) => spectrum.corrected.length === 0)) {
    return <EmptyState title="No percentile data for this run" />;
  }
  return <SpectrumChart lines={lines} />;
}
