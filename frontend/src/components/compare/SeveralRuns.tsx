import { useMemo, type ReactNode } from "react";
import { Link } from "react-router";

import type { CompareRead } from "../../api/types";
import { compareHref, countVerdicts, verdictHeadline } from "../../lib/compare";
import { shortCommit } from "../../lib/format";
import { multiRows } from "../../lib/multiCompare";
import { RunLink } from "../common/RunLink";
import { VerdictBadge } from "../common/VerdictBadge";

/**
 * Several runs side by side: the first (the oldest picked) against each of the others by the
 * lab's comparison, a column per run, and their spectra overlaid (`spectra`).
 */
export function SeveralRuns({
  comparisons,
  spectra,
}: {
  comparisons: CompareRead[];
  spectra: ReactNode;
}) {
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
                  <RunLink id={run.id} />
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
      {spectra}
    </>
  );
}
