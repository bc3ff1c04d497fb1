import { Link, useParams } from "react-router";

import { ApiError, errorMessage } from "../api/client";
import { useRun, useSpectra } from "../api/runs";
import type { RunRead } from "../api/types";
import { SpectrumChart } from "../components/charts/SpectrumChart";
import { EmptyState, ErrorState, Loading } from "../components/common/Status";
import { RunMeta } from "../components/runs/RunMeta";
import { SeriesSummaryTable } from "../components/runs/SeriesSummaryTable";

export function RunDetailPage() {
  const { runId } = useParams();
  const id = Number(runId);
  if (!Number.isInteger(id) || id < 1) {
    return <ErrorState title="No such run" message={`"${runId ?? ""}" is not a run id.`} />;
  }
  return <RunDetail runId={id} />;
}

function RunDetail({ runId }: { runId: number }) {
  const run = useRun(runId);

  return (
    <section>
      <p className="breadcrumb">
        <Link to="/runs">Runs</Link> / #{runId}
      </p>
      {run.isPending ? (
        <Loading label="Loading run…" />
      ) : run.isError ? (
        run.error instanceof ApiError && run.error.status === 404 ? (
          <EmptyState title={`Run #${String(runId)} does not exist`} />
        ) : (
          <ErrorState message={errorMessage(run.error)} onRetry={() => void run.refetch()} />
        )
      ) : (
        <RunBody run={run.data} />
      )}
    </section>
  );
}

function RunBody({ run }: { run: RunRead }) {
  return (
    <>
      <header className="page-header">
        <h1>
          {run.suite} <span className="muted">/</span> {run.scenario}
        </h1>
      </header>
      <RunMeta run={run} />
      <h2>Latency summary</h2>
      {run.series.length === 0 ? (
        <EmptyState title="This run has no series" />
      ) : (
        <>
          <div className="table-scroll">
            <SeriesSummaryTable series={run.series} />
          </div>
          <p className="muted small">
            All trials merged.
            {run.series.some((series) => series.summary_uncorrected)
              ? " Open-loop series show latency from each request's intended send time (corrected for coordinated omission)."
              : ""}
          </p>
          <h2>Percentile spectrum</h2>
          <SpectrumPanel runId={run.id} seriesIds={run.series.map((series) => series.id)} />
        </>
      )}
    </>
  );
}

function SpectrumPanel({ runId, seriesIds }: { runId: number; seriesIds: number[] }) {
  const spectra = useSpectra(runId, seriesIds);
  if (spectra.error) {
    return <ErrorState title="Could not load the spectrum" message={errorMessage(spectra.error)} />;
  }
  if (spectra.isPending) return <Loading label="Loading spectrum…" />;
  if (spectra.data.every((spectrum) => spectrum.corrected.length === 0)) {
    return <EmptyState title="No percentile data for this run" />;
  }
  return <SpectrumChart spectra={spectra.data} />;
}
