import { useMemo } from "react";
import { Link } from "react-router";

import { useTrendSeries } from "../api/analysis";
import { usePermissions } from "../api/auth";
import { useSuites } from "../api/hosts";
import { useRunDetails } from "../api/runs";
import type { MetricInfo } from "../api/types";
import { MissingRuns } from "../components/common/MissingRuns";
import { LabelledSelect } from "../components/common/Select";
import { EmptyState, QueryResult } from "../components/common/Status";
import { Page } from "../components/layout/Page";
import { SeriesPicker } from "../components/trends/SeriesPicker";
import { TrendFilters } from "../components/trends/TrendFilters";
import { TrendPanel } from "../components/trends/TrendPanel";
import { isNotFound, useOpenInRunProject } from "../hooks/useOpenInRunProject";
import { usePageTitle } from "../hooks/usePageTitle";
import { useTrend, type TrendChoice } from "../hooks/useTrend";
import { useUrlFilters } from "../hooks/useUrlFilters";
import { trendChoices, type SeriesChoice } from "../lib/trends";
import { metricLabel } from "../lib/vocabulary";

/** At most this many series are drawn when none are chosen (the first found in recent runs). */
const DEFAULT_SERIES = 6;

/**
 * A metric run after run per series, on one branch (main unless another is chosen) with one
 * params set (the newest run's unless another is chosen), so a chart draws one history.
 * Everything chosen lives in the URL (?suite=&scenario=&metric=&branch=&host=&params=&run=
 * &series={"client":"rust"}...), so a view can be shared; `run` (from a run's page) draws
 * that run's history, its point included.
 */
export function TrendsPage() {
  usePageTitle("Trends");
  const { search, resetFilters } = useUrlFilters();
  const suites = useSuites();
  const suite = search.get("suite") ?? "";
  const scenario = search.get("scenario") ?? "";

  function apply(values: Record<string, string>) {
    // The metric and series belong to a suite and scenario: keep them only if those stay;
    // the params and the run belong to a branch (and host) too.
    const scene = values.suite === suite && values.scenario === scenario;
    const history =
      scene &&
      (values.branch ?? "") === (search.get("branch") ?? "") &&
      (values.host ?? "") === (search.get("host") ?? "");
    resetFilters({
      ...values,
      metric: scene ? search.get("metric") : null,
      params: history ? search.get("params") : null,
      run: history ? search.get("run") : null,
      series: scene ? search.getAll("series") : null,
    });
  }

  return (
    <Page title="Trends">
      <TrendFilters
        key={search.toString()}
        search={search}
        suites={suites.data ?? []}
        onApply={apply}
      />
      {suite && scenario ? (
        <LatestRun suite={suite} scenario={scenario} focusRunId={focusRun(search.get("run"))} />
      ) : (
        <EmptyState title="Choose a suite and a scenario">
          Their history is drawn per series on one branch, with change points, the latest
          run&apos;s window and SLA thresholds.
        </EmptyState>
      )}
    </Page>
  );
}

/** Whose history: a suite's scenario, and the run the trend was opened from (?run=), if any. */
interface TrendScope {
  suite: string;
  scenario: string;
  focusRunId: number | null;
}

/** The run the trend was opened from, when the URL names one: a run of another project of
 * the user's (a shared link, an alert's) opens there. */
function LatestRun({ suite, scenario, focusRunId }: TrendScope) {
  const focusIds = focusRunId === null ? [] : [focusRunId];
  const focus = useRunDetails(focusIds);
  const home = useOpenInRunProject(focusIds, isNotFound(focus.error));
  return (
    <MissingRuns home={home} runIds={focusIds}>
      <ScenarioRuns suite={suite} scenario={scenario} focusRunId={focusRunId} />
    </MissingRuns>
  );
}

/** The scenario's series and metrics (its newest runs', and the run the trend was opened
 * from): what the trend can draw. */
function ScenarioRuns({ suite, scenario, focusRunId }: TrendScope) {
  const found = useTrendSeries(suite, scenario, focusRunId);
  const series = useMemo(() => trendChoices(found.data?.series ?? []), [found.data]);
  return (
    <QueryResult
      query={found}
      loading="Loading series…"
      missing={
        <EmptyState title={`No runs of ${suite} / ${scenario}`}>
          Check the names, or <Link to="/runs">browse the runs</Link>.
        </EmptyState>
      }
    >
      {(data) => (
        <TrendView suite={suite} scenario={scenario} series={series} metrics={data.metrics} />
      )}
    </QueryResult>
  );
}

/** What a trend draws before the reader chooses: the failing series, else the first few. */
function defaultSeries(series: SeriesChoice[]): SeriesChoice[] {
  const failing = series.filter((item) => item.failing);
  return (failing.length > 0 ? failing : series).slice(0, DEFAULT_SERIES);
}

function TrendView({
  suite,
  scenario,
  series: allSeries,
  metrics,
}: {
  suite: string;
  scenario: string;
  series: SeriesChoice[];
  metrics: MetricInfo[];
}) {
  const { search, setFilters } = useUrlFilters();
  const metric =
    search.get("metric") ??
    (metrics.some((info) => info.name === "p99") ? "p99" : (metrics[0]?.name ?? "p99"));
  const chosen = search.getAll("series");
  const selected =
    chosen.length > 0
      ? allSeries.filter((series) => chosen.includes(series.key))
      : defaultSeries(allSeries);

  function toggleSeries(key: string) {
    const current = selected.map((series) => series.key);
    const keys = current.includes(key) ? current.filter((item) => item !== key) : [...current, key];
    setFilters({ series: keys }, { replace: true });
  }

  return (
    <>
      <div className="toolbar">
        <LabelledSelect
          label="Metric"
          value={metric}
          options={metrics.map((info) => ({ value: info.name, text: metricLabel(info.name, info) }))}
          onChange={(value) => setFilters({ metric: value }, { replace: true })}
        />
        {allSeries.length > 1 && (
          <SeriesPicker
            series={allSeries}
            selected={new Set(selected.map((series) => series.key))}
            onToggle={toggleSeries}
          />
        )}
      </div>
      {selected.length === 0 ? (
        <EmptyState title="No series chosen">Tick at least one series above.</EmptyState>
      ) : (
        <Trend
          choice={{
            suite,
            scenario,
            metric,
            series: selected,
            branch: search.get("branch"),
            host: search.get("host"),
            days: search.get("days"),
            params: search.get("params"),
            runId: focusRun(search.get("run")),
          }}
          label={metricLabel(metric, metrics.find((info) => info.name === metric))}
          onChoose={setFilters}
        />
      )}
    </>
  );
}

/** The chosen series' trend, read. */
function Trend({
  choice,
  label,
  onChoose,
}: {
  choice: TrendChoice;
  label: string;
  onChoose: (values: Record<string, string | null>) => void;
}) {
  const trend = useTrend(choice);
  const { canWrite } = usePermissions();
  return (
    <TrendPanel
      suite={choice.suite}
      scenario={choice.scenario}
      metric={choice.metric}
      label={label}
      series={choice.series}
      branch={choice.branch}
      host={choice.host}
      trend={trend}
      canWrite={canWrite}
      onChoose={onChoose}
    />
  );
}

/** The run the trend was opened from (?run=), when the URL names one. */
function focusRun(text: string | null): number | null {
  const id = Number(text);
  return text !== null && Number.isInteger(id) && id > 0 ? id : null;
}
