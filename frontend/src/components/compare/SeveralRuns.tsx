import { useMemo } from "react";
import { Link } from "react-router";

import { useCompares } from "../../api/analysis";
import { errorMessage } from "../../api/client";
import { useSeriesSpectra } from "../../api/runs";
import type { CompareRead } from "../../api/types";
import { compareHref, countVerdicts, verdictHeadline } from "../../lib/compare";
import { formatLabels, shortCommit, stringLabels } from "../../lib/format";
import { multiRows } from "../../lib/multiCompare";
import type { SpectrumLine } from "../../lib/spectrum";
import { SpectrumChart } from "../charts/SpectrumChart";
import { ErrorState, Loading } from "../common/Status";
import { VerdictBadge } from "../common/VerdictBadge";

// Series drawn on the overlaid spectra: each run adds a line per series.
const SPECTRUM_SERIES = 4;

/**
 * Several runs side by side: the first (the oldest picked) against each of the others by the
 * lab's comparison, a column per run, and their spectra overlaid.
 */
export function SeveralRuns({ runIds }: { runIds: number[] }) {
  const [first, ...others] = runIds;
  const comparisons = useCompares(
    others.map((candidate) => ({ baseline: first!, candidate })),
  );
  if (comparisons.error) {
    return <ErrorState title="Could not compare" message={errorMessage(comparisons.error)} />;
  }
  if (comparisons.isPending) return <Loading label="Comparing…" />;
  const loaded = comparisons.data.filter((item): item is CompareRead => item !== undefined);
  return <SeveralBody comparisons={loaded} />;
}

function SeveralBody({ comparisons }: { comparisons: CompareRead[] }) {
  const rows = useMemo(() => multiRows(comparisons), [comparisons]);
  const runs = [comparisons[0]!.baseline, ...comparisons.map((item) => item.candidate)];
  return (
    <>
      <ul className="plain-list headline" aria-label="Verdicts against the first run">
        {comparisons.map((compare) => (
          <li key={compare.candidate.id}>
            <Link to={compareHref(compare.baseline.id, compare.candidate.id)}>
              Run #{compare.candidate.id} against #{compare.baseline.id}
            </Link>
            : <strong>{verdictHeadline(countVerdicts(compare.series))}</strong>
          </li>
        ))}
      </ul>
      <div className="table-scroll">
        <table className="table several-runs-table">
          <thead>
            <tr>
              <th scope="col">Series</th>
              <th scope="col">Metric</th>
              {runs.map((run, index) => (
                <th key={run.id} scope="col" className="num" data-run-id={run.id}>
                  <Link to={`/runs/${String(run.id)}`}>#{run.id}</Link>
                  {index === 0 && " (baseline)"}
                  <div className="muted small">
                    {[run.branch, run.commit && shortCommit(run.commit)].filter(Boolean).join(" · ")}
                  </div>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.key} data-metric={row.metric}>
                <th scope="row">{row.series}</th>
                <td>{row.label}</td>
                {row.cells.map((cell, index) => (
                  <td key={runs[index]!.id} className="num">
                    {cell === undefined ? (
                      <span className="muted">—</span>
                    ) : (
                      <>
                        {cell.value}
                        {cell.verdict && (
                          <div className="small">
                            {cell.deltaPct} <VerdictBadge verdict={cell.verdict} />
                          </div>
                        )}
                      </>
                    )}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="muted small">
        Each value is the median of the run&apos;s trials; each verdict and change is that run
        against the first, as the two-run comparison tests it.
      </p>
      <h2>Percentile spectra</h2>
      <SeveralSpectra comparisons={comparisons} />
    </>
  );
}

/** The first few series of every run on one chart: a colour per run, the first dashed. */
function SeveralSpectra({ comparisons }: { comparisons: CompareRead[] }) {
  const picks = useMemo(() => {
    const baseline = comparisons[0]!.series.slice(0, SPECTRUM_SERIES).map((item) => ({
      runId: comparisons[0]!.baseline.id,
      seriesId: item.baseline_series_id,
      labels: stringLabels(item.labels),
      runIndex: 0,
    }));
    const candidates = comparisons.flatMap((compare, index) =>
      compare.series.slice(0, SPECTRUM_SERIES).map((item) => ({
        runId: compare.candidate.id,
        seriesId: item.candidate_series_id,
        labels: stringLabels(item.labels),
        runIndex: index + 1,
      })),
    );
    return [...baseline, ...candidates];
  }, [comparisons]);
  const spectra = useSeriesSpectra(picks);
  const lines: SpectrumLine[] = useMemo(
    () =>
      picks.flatMap((pick) => {
        const spectrum = spectra.data.find((item) => item.series_id === pick.seriesId);
        return spectrum
          ? [
              {
                key: `${String(pick.runId)}-${String(pick.seriesId)}`,
                name: `#${String(pick.runId)} ${formatLabels(pick.labels)}`,
                seriesIndex: pick.runIndex,
                dashed: pick.runIndex === 0,
                points: spectrum.corrected,
              },
            ]
          : [];
      }),
    [picks, spectra.data],
  );
  if (spectra.error) {
    return <ErrorState title="Could not load the spectra" message={errorMessage(spectra.error)} />;
  }
  if (spectra.isPending) return <Loading label="Loading spectra…" />;
  return <SpectrumChart lines={lines} label="Several runs' latency by percentile" />;
}
