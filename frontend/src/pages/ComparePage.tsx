import { useMemo, type FormEvent } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";

import { useCompare } from "../api/analysis";
import { SeveralRuns } from "../components/compare/SeveralRuns";
import { errorMessage } from "../api/client";
import { useRun, useSpectra } from "../api/runs";
import type { CompareQuery, CompareRead } from "../api/types";
import { CurveChart } from "../components/charts/CurveChart";
import { SpectrumChart } from "../components/charts/SpectrumChart";
import { EmptyState, ErrorState, Loading, QueryResult } from "../components/common/Status";
import { CompareTable } from "../components/compare/CompareTable";
import { RunRefCard } from "../components/compare/RunRefCard";
import {
  compareGroups,
  compareHref,
  countVerdicts,
  parseRunId,
  profilesHref,
  sideNames,
  verdictHeadline,
} from "../lib/compare";
import { compareCurveMetrics, compareCurves } from "../lib/curves";
import { formatLabels } from "../lib/format";
import { overlayLines, type SpectrumPair } from "../lib/spectrum";
import { parseRunIds } from "../lib/multiCompare";
import { metricLabel } from "../lib/vocabulary";
import { usePageTitle } from "../hooks/usePageTitle";

/** /compare?baseline=A&candidate=B: the address is the comparison, so it can be shared. */
export function ComparePage() {
  usePageTitle("Compare");
  const [search] = useSearchParams();
  const baseline = parseRunId(search.get("baseline"));
  const candidate = parseRunId(search.get("candidate"));
  const baselineLabels = search.get("baseline_labels") ?? undefined;
  const candidateLabels = search.get("candidate_labels") ?? undefined;
  const several = parseRunIds(search.get("runs"));
  if (several !== null) {
    return (
      <section>
        <header className="page-header">
          <h1>Compare {several.length} runs</h1>
        </header>
        <SeveralRuns runIds={several} />
      </section>
    );
  }
  return (
    <section>
      <header className="page-header">
        <h1>Compare</h1>
        {baseline !== null && candidate !== null && (
          <div className="page-actions">
            <Link
              className="button"
              to={profilesHref({
                baseline,
                candidate,
                baseline_labels: baselineLabels,
                candidate_labels: candidateLabels,
              })}
            >
              Compare CPU profiles
            </Link>
          </div>
        )}
      </header>
      <PickRuns baseline={baseline} candidate={candidate} />
      {baseline !== null && candidate !== null ? (
        <Comparison
          query={{
            baseline,
            candidate,
            baseline_labels: baselineLabels,
            candidate_labels: candidateLabels,
          }}
        />
      ) : (
        <EmptyState title="Choose two runs">
          Type their ids above, or pick two on the <Link to="/runs">runs page</Link>.
        </EmptyState>
      )}
    </section>
  );
}

function PickRuns({ baseline, candidate }: { baseline: number | null; candidate: number | null }) {
  const navigate = useNavigate();
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const a = parseRunId(String(data.get("baseline") ?? ""));
    const b = parseRunId(String(data.get("candidate") ?? ""));
    if (a !== null && b !== null) void navigate(compareHref(a, b));
  }
  return (
    <form
      className="toolbar"
      onSubmit={submit}
      key={`${String(baseline)}-${String(candidate)}`}
      aria-label="Runs to compare"
    >
      <label>
        Baseline run{" "}
        <input
          name="baseline"
          type="number"
          min={1}
          required
          defaultValue={baseline ?? ""}
          className="input-id"
        />
      </label>
      <label>
        Candidate run{" "}
        <input
          name="candidate"
          type="number"
          min={1}
          required
          defaultValue={candidate ?? ""}
          className="input-id"
        />
      </label>
      <button type="submit" className="button button-primary">
        Compare
      </button>
      {baseline !== null && candidate !== null && (
        <Link className="button" to={compareHref(candidate, baseline)}>
          Swap
        </Link>
      )}
    </form>
  );
}

function Comparison({ query }: { query: CompareQuery }) {
  return (
    <QueryResult
      query={useCompare(query)}
      loading="Comparing…"
      missing="One of these runs does not exist"
    >
      {(compare) => <ComparisonBody compare={compare} />}
    </QueryResult>
  );
}

function ComparisonBody({ compare }: { compare: CompareRead }) {
  const groups = useMemo(() => compareGroups(compare.series), [compare.series]);
  const counts = countVerdicts(compare.series);
  const sides = sideNames(compare.baseline_labels, compare.candidate_labels);
  return (
    <>
      <p className="headline" aria-live="polite">
        Run #{compare.candidate.id}
        {selector(compare.candidate_labels)} against #{compare.baseline.id}
        {selector(compare.baseline_labels)}: <strong>{verdictHeadline(counts)}</strong>
      </p>
      <div className="two-columns">
        <RunRefCard role="Baseline" run={compare.baseline} />
        <RunRefCard role="Candidate" run={compare.candidate} />
      </div>
      {compare.warnings.length > 0 && (
        <div className="warning" role="note" aria-label="Comparability warnings">
          <strong>These runs may not be comparable</strong>
          <ul>
            {compare.warnings.map((warning) => (
              <li key={warning}>{warning}</li>
            ))}
          </ul>
        </div>
      )}
      <h2>Metrics</h2>
      {groups.length === 0 ? (
        <EmptyState title="No series in common">
          The two runs share no series labels to compare.
        </EmptyState>
      ) : (
        <>
          <div className="table-scroll">
            <CompareTable groups={groups} sides={sides} />
          </div>
          <p className="muted small">
            Each value is the median of its side&apos;s trials; verdicts test the trials
            themselves (hover or focus a verdict for the test and its p-value). A significant change is green when the metric moved the good way for its
            direction, red when it moved the bad way.
          </p>
        </>
      )}
      <SweepOverlay compare={compare} />
      <Unmatched title="Only in the baseline" series={compare.unmatched_baseline} />
      <Unmatched title="Only in the candidate" series={compare.unmatched_candidate} />
      {compare.series.length > 0 && (
        <>
          <h2>Percentile spectra</h2>
          <OverlaidSpectra compare={compare} />
        </>
      )}
    </>
  );
}

/** " [server=zig]" after a run's id when only some of its series are compared. */
function selector(labels: Record<string, string>): string {
  return Object.keys(labels).length > 0 ? ` [${formatLabels(labels)}]` : "";
}

/** When the candidate sweeps an axis: each metric's curves, baseline dashed, verdict dots. */
function SweepOverlay({ compare }: { compare: CompareRead }) {
  const run = useRun(compare.candidate.id);
  const sweep = run.data?.sweep;
  const charts = useMemo(() => {
    if (!sweep) return [];
    return compareCurveMetrics(compare.series).map((metric) => {
      const delta = compare.series
        .flatMap((item) => item.metrics)
        .find((m) => m.metric === metric);
      return {
        metric,
        label: metricLabel(metric, delta),
        unit: delta?.unit ?? "",
        curves: compareCurves(compare.series, sweep.axis, metric),
      };
    });
  }, [compare.series, sweep]);
  if (!sweep || charts.length === 0) return null;
  return (
    <>
      <h2>Load-latency curves</h2>
      <div className="curve-grid">
        {charts.map((chart) => (
          <CurveChart
            key={chart.metric}
            curves={chart.curves}
            axis={sweep.axis}
            metricLabel={chart.label}
            unit={chart.unit}
          />
        ))}
      </div>
      <p className="muted small">
        Dashed: baseline; solid: candidate; a candidate point is red when its verdict is
        regressed, green when improved, amber when inconclusive.
      </p>
    </>
  );
}

function Unmatched({ title, series }: { title: string; series: Record<string, unknown>[] }) {
  if (series.length === 0) return null;
  return (
    <p className="muted">
      {title}: {series.map((item) => formatLabels(labelsOf(item))).join("; ")}
    </p>
  );
}

/** Series labels arrive as JSON objects; their values are shown as text. */
function labelsOf(labels: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).map(([key, value]) => [key, String(value)]));
}

function OverlaidSpectra({ compare }: { compare: CompareRead }) {
  const baseline = useSpectra(
    compare.baseline.id,
    compare.series.map((item) => item.baseline_series_id),
  );
  const candidate = useSpectra(
    compare.candidate.id,
    compare.series.map((item) => item.candidate_series_id),
  );
  const lines = useMemo(() => {
    const pairs: SpectrumPair[] = compare.series.flatMap((item) => {
      const before = baseline.data.find(
        (spectrum) => spectrum.series_id === item.baseline_series_id,
      );
      const after = candidate.data.find(
        (spectrum) => spectrum.series_id === item.candidate_series_id,
      );
      return before && after
        ? [{ labels: labelsOf(item.labels), baseline: before, candidate: after }]
        : [];
    });
    return overlayLines(pairs, sideNames(compare.baseline_labels, compare.candidate_labels));
  }, [compare, baseline.data, candidate.data]);
  const error = baseline.error ?? candidate.error;
  if (error) return <ErrorState title="Could not load the spectra" message={errorMessage(error)} />;
  if (baseline.isPending || candidate.isPending) return <Loading label="Loading spectra…" />;
  if (lines.length === 0) return <EmptyState title="No percentile data for these runs" />;
  return (
    <>
      <SpectrumChart lines={lines} label="Baseline and candidate latency by percentile" />
      <p className="muted small">
        Dashed: {sideNames(compare.baseline_labels, compare.candidate_labels).baseline}; solid:{" "}
        {sideNames(compare.baseline_labels, compare.candidate_labels).candidate}.
      </p>
    </>
  );
}
