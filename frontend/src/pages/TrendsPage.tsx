import { useMemo } from "react";
import { Link, useSearchParams } from "react-router";

import { useTrendSeries } from "../api/analysis";
import { errorMessage } from "../api/client";
import { useSuites } from "../api/hosts";
import { useRunDetails } from "../api/runs";
import type { MetricInfo } from "../api/types";
import { MissingRuns } from "../components/common/MissingRuns";
import { EmptyState, ErrorState, Loading } from "../components/common/Status";
import { SeriesPicker } from "../components/trends/SeriesPicker";
import { TrendFilters } from "../components/trends/TrendFilters";
import { TrendPanel } from "../components/trends/TrendPanel";
import { trendChoices, type SeriesChoice } from "../lib/trends";
import { metricLabel } from "../lib/vocabulary";
import { isNotFound, useOpenInRunProject } from "../hooks/useOpenInRunProject";
import { usePageTitle } from "../hooks/usePageTitle";

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
  const [search, setSearch] = useSearchParams();
  const suites = useSuites();
  const suite = search.get("suite") ?? "";
  const scenario = search.get("scenario") ?? "";

  function apply(values: Record<string, string>) {
    const next = new URLSearchParams();
    for (const [name, value] of Object.entries(values))
      if (value.trim()) next.set(name, value.trim());
    // The metric and series belong to a suite and scenario: keep them only if those stay;
    // the params and the run belong to a branch (and host) too.
    if (values.suite === suite && values.scenario === scenario) {
      for (const name of ["metric", "params", "run"]) {
        const value = search.get(name);
        const same =
          name === "metric" ||
          ((values.branch ?? "") === (search.get("branch") ?? "") &&
            (values.host ?? "") === (search.get("host") ?? ""));
        if (value && same) next.set(name, value);
      }
      for (const series of search.getAll("series")) next.append("series", series);
    }
    setSearch(next);
  }

  return (
    <section>
      <header className="page-header">
        <h1>Trends</h1>
      </header>
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
    </section>
  );
}

/** The run the trend was opened from, when the URL names one: a run of another project of
 * the user's (a shared link, an alert's) opens there. */
function LatestRun({
  suite,
  scenario,
  focusRunId,
}: {
  suite: string;
  scenario: string;
  focusRunId: number | null;
}) {
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
function ScenarioRuns({
  suite,
  scenario,
  focusRunId,
}: {
  suite: string;
  scenario: string;
  focusRunId: number | null;
}) {
  const found = useTrendSeries(suite, scenario, focusRunId);
  const series = useMemo(() => trendChoices(found.data?.series ?? []), [found.data]);
  if (found.isPending) return <Loading label="Loading series…" />;
  if (isNotFound(found.error)) {
    return (
      <EmptyState title={`No runs of ${suite} / ${scenario}`}>
        Check the names, or <Link to="/runs">browse the runs</Link>.
      </EmptyState>
    );
  }
  if (found.isError)
    return <ErrorState message={errorMessage(found.error)} onRetry={() => void found.refetch()} />;
  return (
    <TrendView suite={suite} scenario={scenario} series={series} metrics={found.data.metrics} />
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
  const [search, setSearch] = useSearchParams();
  const metric =
    search.get("metric") ??
    (metrics.some((info) => info.name === "p99") ? "p99" : (metrics[0]?.name ?? "p99"));
  const chosen = search.getAll("series");
  const selected =
    chosen.length > 0
      ? allSeries.filter((series) => chosen.includes(series.key))
      : defaultSeries(allSeries);

  function setMetric(name: string) {
    const next = new URLSearchParams(search);
    next.set("metric", name);
    setSearch(next, { replace: true });
  }

  function toggleSeries(key: string) {
    const current = selected.map((series) => series.key);
    const keys = current.includes(key) ? current.filter((item) => item !== key) : [...current, key];
    const next = new URLSearchParams(search);
    next.delete("series");
    for (const item of keys) next.append("series", item);
    setSearch(next, { replace: true });
  }

  return (
    <>
      <div className="toolbar">
        <label>
          Metric{" "}
          <select value={metric} onChange={(event) => setMetric(event.target.value)}>
            {metrics.map((info) => (
              <option key={info.name} value={info.name}>
                {metricLabel(info.name, info)}
              </option>
            ))}
          </select>
        </label>
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
        <TrendPanel
          suite={suite}
          scenario={scenario}
          metric={metric}
          label={metricLabel(metric, metrics.find((info) => info.name === metric))}
          series={selected}
          branch={search.get("branch")}
          host={search.get("host")}
          days={search.get("days")}
          params={search.get("params")}
          runId={focusRun(search.get("run"))}
        />
      )}
    </>
  );
}

/** The run the trend was opened from (?run=), when the URL names one. */
function focusRun(text: string | null): number | null {
  const id = Number(text);
  return text !== null && Number.isInteger(id) && id > 0 ? id : null;
}
