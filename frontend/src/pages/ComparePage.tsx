import { useMemo, useState, type FormEvent } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";

import { useCompare } from "../api/analysis";
import { usePermissions } from "../api/auth";
import { useRun, useSeriesSpectra } from "../api/runs";
import type { CompareQuery, CompareRead, SeriesDelta } from "../api/types";
import { CurveChart } from "../components/charts/CurveChart";
import { SpectrumChart } from "../components/charts/SpectrumChart";
import { ShareButton } from "../components/common/ShareButton";
import { EmptyState, QueryResult } from "../components/common/Status";
import { CompareTable } from "../components/compare/CompareTable";
import { GateVerdict } from "../components/compare/GateVerdict";
import { RunRefCards } from "../components/compare/RunRefCard";
import { SeriesFilterBar } from "../components/compare/SeriesFilterBar";
import { Page } from "../components/layout/Page";
import { usePageTitle } from "../hooks/usePageTitle";
import {
  compareGroups,
  compareHref,
  comparedRuns,
  countVerdicts,
  filterSeries,
  orderByChange,
  parseRunId,
  profilesHref,
  regressions,
  sideNames,
  verdictHeadline,
  type SeriesFilter,
} from "../lib/compare";
import { compareCurveMetrics, compareCurves } from "../lib/curves";
import { formatLabels } from "../lib/format";
import { parseRunIds } from "../lib/multiCompare";
import { overlayLines, type SpectrumPair } from "../lib/spectrum";
import { metricLabel } from "../lib/vocabulary";
import { CompareSeveralPage } from "./CompareSeveralPage";
import { RunsResult } from "./RunsResult";

/** /compare?baseline=A&candidate=B: the address is the comparison, so it can be shared. */
export function ComparePage() {
  usePageTitle("Compare");
  const [search] = useSearchParams();
  const baseline = parseRunId(search.get("baseline"));
  const candidate = parseRunId(search.get("candidate"));
  const baselineLabels = search.get("baseline_labels") ?? undefined;
  const candidateLabels = search.get("candidate_labels") ?? undefined;
  const several = parseRunIds(search.get("runs"));
  const { canWrite } = usePermissions();
  if (several !== null) return <CompareSeveralPage runIds={several} />;
  return (
    <Page
      title="Compare"
      aside={
        baseline !== null && candidate !== null && (
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
            <ShareButton
              body={{ kind: "compare", baseline, candidate }}
              what="comparison"
              canWrite={canWrite}
            />
          </div>
        )
      }
    >
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
    </Page>
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
      {(["baseline", "candidate"] as const).map((side) => (
        <label key={side}>
          {side === "baseline" ? "Baseline" : "Candidate"} run{" "}
          <input
            name={side}
            type="number"
            min={1}
            required
            defaultValue={{ baseline, candidate }[side] ?? ""}
            className="input-id"
          />
        </label>
      ))}
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
    <RunsResult
      query={useCompare(query)}
      runIds={[query.baseline, query.candidate]}
      loading="Comparing…"
      missing="One of these runs does not exist"
    >
      {(found) => <ComparisonBody compare={found} />}
    </RunsResult>
  );
}

// A comparison with more series than this opens on the changed ones only.
const CHANGED_ONLY_ABOVE = 20;
// The spectra drawn at once: the first of the series shown, in their order.
const SPECTRA_SHOWN = 12;
// The regressions the headline names; the rest are counted.
const HEADLINE_NAMES = 5;

function ComparisonBody({ compare }: { compare: CompareRead }) {
  const ordered = useMemo(() => orderByChange(compare.series), [compare.series]);
  const [filter, setFilter] = useState<SeriesFilter>({
    search: "",
    changedOnly: compare.series.length > CHANGED_ONLY_ABOVE,
    failingOnly: false,
  });
  const shown = useMemo(() => filterSeries(ordered, filter), [ordered, filter]);
  const groups = useMemo(() => compareGroups(shown), [shown]);
  const counts = countVerdicts(compare.series);
  const regressed = regressions(compare.series);
  const sides = sideNames(compare.baseline_labels, compare.candidate_labels);
  const candidate = useRun(compare.candidate.id).data;
  return (
    <>
      <p className="headline" aria-live="polite">
        {comparedRuns(compare)}: <strong>{verdictHeadline(counts)}</strong>
      </p>
      {regressed.length > 0 && (
        <p className="regressions" aria-label="Regressions">
          Regressed: {regressed.slice(0, HEADLINE_NAMES).join("; ")}
          {regressed.length > HEADLINE_NAMES
            ? `; and ${String(regressed.length - HEADLINE_NAMES)} more`
            : ""}
        </p>
      )}
      {candidate && <GateVerdict run={candidate} />}
      <RunRefCards baseline={compare.baseline} candidate={compare.candidate} />
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
      {compare.series.length === 0 ? (
        <EmptyState title="No series in common">
          The two runs share no series labels to compare.
        </EmptyState>
      ) : (
        <>
          {compare.series.length > 1 && (
            <SeriesFilterBar
              filter={filter}
              onChange={setFilter}
              shown={shown.length}
              total={compare.series.length}
            />
          )}
          {groups.length === 0 ? (
            <EmptyState title="No series match">
              None of the {compare.series.length} series compared matches these filters.
            </EmptyState>
          ) : (
            <div className="table-scroll">
              <CompareTable groups={groups} sides={sides} />
            </div>
          )}
          <p className="muted small">
            Series that regressed come first, then those that improved, each by the size of its
            change. Each value is the median of its side&apos;s trials; verdicts test the trials
            themselves (hover or focus a verdict for the test and its p-value). A significant change is green when the metric moved the good way for its
            direction, red when it moved the bad way.
          </p>
        </>
      )}
      {candidate?.sweep && <SweepOverlay compare={compare} axis={candidate.sweep.axis} />}
      <Unmatched title="Only in the baseline" series={compare.unmatched_baseline} />
      <Unmatched title="Only in the candidate" series={compare.unmatched_candidate} />
      {shown.length > 0 && (
        <>
          <h2>Percentile spectra</h2>
          {shown.length > SPECTRA_SHOWN && (
            <p className="muted small">
              The first {SPECTRA_SHOWN} of the {shown.length} series shown above; search or filter
              to draw others.
            </p>
          )}
          <OverlaidSpectra compare={compare} series={shown.slice(0, SPECTRA_SHOWN)} />
        </>
      )}
    </>
  );
}

/** When the candidate sweeps an axis: each metric's curves, baseline dashed, verdict dots. */
function SweepOverlay({ compare, axis }: { compare: CompareRead; axis: string }) {
  const charts = useMemo(() => {
    return compareCurveMetrics(compare.series).map((metric) => {
      const delta = compare.series
        .flatMap((item) => item.metrics)
        .find((m) => m.metric === metric);
      return {
        metric,
        label: metricLabel(metric, delta),
        unit: delta?.unit ?? "",
        curves: compareCurves(compare.series, axis, metric),
      };
    });
  }, [compare.series, axis]);
  if (charts.length === 0) return null;
  return (
    <>
      <h2>Load-latency curves</h2>
      <div className="curve-grid">
        {charts.map((chart) => (
          <CurveChart
            key={chart.metric}
            curves={chart.curves}
            axis={axis}
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

function OverlaidSpectra({ compare, series }: { compare: CompareRead; series: SeriesDelta[] }) {
  const spectra = useSeriesSpectra(
    series.flatMap((item) => [
      { runId: compare.baseline.id, seriesId: item.baseline_series_id },
      { runId: compare.candidate.id, seriesId: item.candidate_series_id },
    ]),
  );
  const sides = sideNames(compare.baseline_labels, compare.candidate_labels);
  const lines = useMemo(() => {
    const find = (seriesId: number) => spectra.data.find((item) => item.series_id === seriesId);
    const pairs: SpectrumPair[] = series.flatMap((item) => {
      const before = find(item.baseline_series_id);
      const after = find(item.candidate_series_id);
      return before && after
        ? [{ labels: labelsOf(item.labels), baseline: before, candidate: after }]
        : [];
    });
    return overlayLines(pairs, sideNames(compare.baseline_labels, compare.candidate_labels));
  }, [compare, series, spectra.data]);
  return (
    <QueryResult
      query={spectra}
      loading="Loading spectra…"
      title="Could not load the spectra"
      isEmpty={() => lines.length === 0}
      empty={<EmptyState title="No percentile data for these runs" />}
    >
      {() => (
        <>
          <SpectrumChart lines={lines} label="Baseline and candidate latency by percentile" />
          <p className="muted small">
            Dashed: {sides.baseline}; solid: {sides.candidate}.
          </p>
        </>
      )}
    </QueryResult>
  );
}
