import { useMemo } from "react";
import { Link, useParams } from "react-router";

import { useBaselines, usePinBaseline } from "../api/analysis";
import { useAnnotations } from "../api/annotations";
import { usePermissions } from "../api/auth";
import { errorMessage } from "../api/client";
import { useJob } from "../api/jobs";
import { useRun, useRunContext } from "../api/runs";
import type { RunRead } from "../api/types";
import { PointEstimateChart } from "../components/charts/PointEstimateChart";
import { RunLink } from "../components/common/RunLink";
import { ShareButton } from "../components/common/ShareButton";
import { EmptyState, ErrorState } from "../components/common/Status";
import { RunVerdictBadge } from "../components/common/VerdictBadge";
import { Fingerprint } from "../components/hosts/Fingerprint";
import { CiVerdict } from "../components/runs/CiVerdict";
import { CompareSeriesForm } from "../components/runs/CompareSeriesForm";
import { GateEvidence } from "../components/runs/GateEvidence";
import { HeadVsBase } from "../components/runs/HeadVsBase";
import { IntervalsPanel } from "../components/runs/IntervalsPanel";
import { ProfilesPanel } from "../components/runs/ProfilesPanel";
import { RunAnnotations } from "../components/runs/RunAnnotations";
import { RunBanner } from "../components/runs/RunBanner";
import { RunDownloads } from "../components/runs/RunDownloads";
import { RunMeta } from "../components/runs/RunMeta";
import { SeriesSummaryTable } from "../components/runs/SeriesSummaryTable";
import { SpectrumPanel } from "../components/runs/SpectrumPanel";
import { SweepCurves } from "../components/runs/SweepCurves";
import { TrialsTable } from "../components/runs/TrialsTable";
import { TuningApplied } from "../components/runs/TuningApplied";
import { usePageTitle } from "../hooks/usePageTitle";
import { useRunProfiles } from "../hooks/useRunProfiles";
import { useRunSpectra } from "../hooks/useRunSpectra";
import { nearRunQuery } from "../lib/annotations";
import { compareHref } from "../lib/compare";
import { comparableAxes } from "../lib/curves";
import { stringLabels } from "../lib/format";
import { isPointSeries, pointEstimates } from "../lib/pointEstimates";
import { trendHref } from "../lib/trends";
import { isTryRun } from "../lib/tries";
import { tuningSummary } from "../lib/tuning";
import { RunsResult } from "./RunsResult";

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
  usePageTitle(
    run.data === undefined
      ? `Run #${String(runId)}`
      : `Run #${String(runId)} · ${run.data.suite} / ${run.data.scenario}`,
  );

  return (
    <section>
      <p className="breadcrumb">
        <Link to="/runs">Runs</Link> / #{runId}
      </p>
      <RunsResult
        query={run}
        runIds={[runId]}
        loading="Loading run…"
        missing={`Run #${String(runId)} does not exist`}
      >
        {(found) => <RunBody run={found} />}
      </RunsResult>
    </section>
  );
}

function RunBody({ run }: { run: RunRead }) {
  const tuning = useMemo(() => tuningSummary(run.series), [run.series]);
  const context = useRunContext(run.id);
  // A try job's base commit is its job's.
  const job = useJob(isTryRun(run) ? run.job_id : null);
  const profiles = useRunProfiles(run.id, run.series.length > 0);
  const spectra = useRunSpectra(run.id, run.series.filter((series) => !isPointSeries(series)));
  const annotations = useAnnotations(nearRunQuery(run));
  const { canWrite } = usePermissions();
  const axes = useMemo(
    () => comparableAxes(run.series, run.sweep?.axis),
    [run.series, run.sweep],
  );
  // The run's own history: its branch and params, its point drawn.
  const trendsHref = `/trends?${new URLSearchParams({
    suite: run.suite,
    scenario: run.scenario,
    run: String(run.id),
  }).toString()}`;
  return (
    <>
      <header className="page-header">
        <h1>
          {run.suite} <span className="muted">/</span> {run.scenario}
        </h1>
        <RunVerdictBadge verdict={run.verdict} />
        {run.confirmation && (
          <span className="muted small" data-confirmation={run.confirmation}>
            regression {run.confirmation}
          </span>
        )}
        <div className="page-actions">
          {run.baseline_run_id !== null && (
            <Link className="button" to={compareHref(run.baseline_run_id, run.id)}>
              Compare with baseline #{run.baseline_run_id}
            </Link>
          )}
          <Link className="button" to={trendsHref}>
            Trends
          </Link>
          {canWrite && <PinBaseline run={run} />}
          <ShareButton body={{ kind: "run", run_id: run.id }} what="run" canWrite={canWrite} />
        </div>
      </header>
      <RunBanner run={run} tuning={tuning} alerts={context.data?.alerts ?? []} />
      <RunMeta run={run} />
      {(run.histograms_retired_at ?? run.intervals_retired_at) && (
        <p className="warning" role="note">
          {run.histograms_retired_at
            ? "Retention retired this run's histograms and intervals: its summaries remain, its percentile spectrum and latency over time do not."
            : "Retention retired this run's intervals: its summaries and histograms remain, its latency over time does not."}
        </p>
      )}

      {isTryRun(run) ? (
        <section aria-labelledby="ci-verdict">
          <h2 id="ci-verdict">Head vs base</h2>
          <HeadVsBase run={run} job={job.data} />
        </section>
      ) : (
        <CiVerdict run={run} />
      )}
      {run.gate_evidence.length > 0 && (
        <>
          <h3 id="gate-evidence">Judged against its history</h3>
          <GateEvidence evidence={run.gate_evidence} metricInfo={run.metric_info} />
        </>
      )}
      {run.confirms_run_id !== null && (
        <p className="muted">
          This run measured again the suspected regression of{" "}
          <RunLink id={run.confirms_run_id} text="run #" />.
        </p>
      )}

      <h2>Latency summary</h2>
      {run.series.length === 0 ? (
        <EmptyState title="This run has no series" />
      ) : (
        <>
          <SeriesSummaryTable
            series={run.series}
            metricInfo={run.metric_info}
            context={context.data?.series}
            trendHref={(labels) =>
              trendHref({
                suite: run.suite,
                scenario: run.scenario,
                metric: "p99",
                series: [stringLabels(labels)],
                runId: run.id,
              })
            }
          />
          <p className="muted small">
            All trials merged. ⚠ marks a tail percentile with too few samples beyond it to trust.
            {run.series.some((series) => series.summary_uncorrected)
              ? " Open-loop series show latency from each request's intended send time (corrected for coordinated omission); the uncorrected view is shown below it."
              : ""}
          </p>
          {run.sweep && (
            <>
              <h2>Load-latency curves</h2>
              <SweepCurves series={run.series} sweep={run.sweep} metricInfo={run.metric_info} />
            </>
          )}
          {Object.keys(axes).length > 0 && (
            <>
              <h2>Compare two series</h2>
              <CompareSeriesForm runId={run.id} axes={axes} />
            </>
          )}
          {run.series.some((series) => !isPointSeries(series)) && (
            <>
              <h2>Percentile spectrum</h2>
              <SpectrumPanel
                series={run.series.filter((series) => !isPointSeries(series))}
                view={spectra}
              />
            </>
          )}
          {run.series.some(isPointSeries) && (
            <>
              <h2>Mean of the trials</h2>
              <PointEstimateChart estimates={pointEstimates(run.series)} />
            </>
          )}
          <h2>Latency over time</h2>
          <IntervalsPanel series={run.series} metricInfo={run.metric_info} />
          <h2>Trials</h2>
          <div className="table-scroll">
            <TrialsTable series={run.series} metricInfo={run.metric_info} />
          </div>
          <RunDownloads runId={run.id} series={run.series} />
          <ProfilesPanel run={run} profiles={profiles} />
        </>
      )}

      <RunAnnotations run={run} annotations={annotations.data ?? []} />

      <h2 id="host-tuning">Host and tuning</h2>
      <div className="two-columns">
        <div className="panel">
          <h3>Fingerprint of {run.host_name ?? "the host"}</h3>
          <Fingerprint fingerprint={run.host_fingerprint} />
        </div>
        <div className="panel">
          <h3>Tuning applied by the load programs</h3>
          <TuningApplied entries={tuning} trialCount={run.trial_count} />
        </div>
      </div>
    </>
  );
}

/** "Pin as baseline" (members), or the branch this run is the pinned baseline of. */
function PinBaseline({ run }: { run: RunRead }) {
  const baselines = useBaselines();
  const pin = usePinBaseline();
  const pinned = baselines.data?.find((baseline) => baseline.run_id === run.id);
  if (pinned) return <span className="muted small">Pinned baseline of {pinned.branch}</span>;
  return (
    <>
      <button
        type="button"
        className="button"
        disabled={pin.isPending || baselines.isPending}
        onClick={() => pin.mutate(run.id)}
      >
        Pin as baseline
      </button>
      {pin.isError && (
        <span className="field-error" role="alert">
          {errorMessage(pin.error)}
        </span>
      )}
    </>
  );
}
