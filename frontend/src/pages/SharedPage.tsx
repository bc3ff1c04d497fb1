import { useMemo } from "react";
import { useParams } from "react-router";

import { useShared } from "../api/sharing";
import type { CompareRead, RunRead, SharedRead, TrendRead } from "../api/types";
import { TrendChart } from "../components/charts/TrendChart";
import { EmptyState, QueryResult } from "../components/common/Status";
import { RunVerdictBadge } from "../components/common/VerdictBadge";
import { CompareTable } from "../components/compare/CompareTable";
import { RunMeta } from "../components/runs/RunMeta";
import { SeriesSummaryTable } from "../components/runs/SeriesSummaryTable";
import { compareGroups } from "../lib/compare";
import { formatDateTime, formatLabels } from "../lib/format";
import { changeMarkers, mergeTrendRows } from "../lib/trends";

/** What a link that shows nothing answers: no such link (404), revoked or expired (410), or a
 * token that cannot be one (422). */
const GONE = [404, 410, 422];

/**
 * A share link's page, opened without a login: the one run, comparison or trend it names, read
 * only, with nothing else of its project (no menu, no links into the dashboard).
 */
export function SharedPage() {
  const { token = "" } = useParams();
  const shared = useShared(token);
  return (
    <main className="shared">
      <header className="shared-header">
        <strong>latlab</strong>{" "}
        <span className="muted">
          · a read-only page shared
          {shared.data ? ` from project ${shared.data.project}` : ""}
          {shared.data?.expires_at ? `, until ${formatDateTime(shared.data.expires_at)}` : ""}
        </span>
      </header>
      <QueryResult
        query={shared}
        loading="Loading the shared page…"
        missing="Nothing to show"
        missingStatuses={GONE}
      >
        {(found) => <SharedView shared={found} />}
      </QueryResult>
    </main>
  );
}

function SharedView({ shared }: { shared: SharedRead }) {
  if (shared.run) return <SharedRun run={shared.run} />;
  if (shared.compare) return <SharedCompare compare={shared.compare} />;
  if (shared.trend) return <SharedTrend trend={shared.trend} />;
  return <EmptyState title="Nothing to show" />;
}

function SharedRun({ run }: { run: RunRead }) {
  return (
    <>
      <h1>
        Run #{run.id} · {run.suite}/{run.scenario} <RunVerdictBadge verdict={run.verdict} />
      </h1>
      <p className="muted">Started {formatDateTime(run.started_at)}</p>
      <RunMeta run={run} />
      <h2>Latency summary</h2>
      <SeriesSummaryTable series={run.series} metricInfo={run.metric_info} />
    </>
  );
}

function SharedCompare({ compare }: { compare: CompareRead }) {
  const groups = useMemo(() => compareGroups(compare.series), [compare.series]);
  return (
    <>
      <h1>
        Run #{compare.candidate.id} against run #{compare.baseline.id} ·{" "}
        {compare.candidate.suite}/{compare.candidate.scenario}
      </h1>
      {compare.warnings.length > 0 && (
        <ul className="warning">
          {compare.warnings.map((warning) => (
            <li key={warning}>{warning}</li>
          ))}
        </ul>
      )}
      <CompareTable groups={groups} />
    </>
  );
}

function SharedTrend({ trend }: { trend: TrendRead }) {
  const key = formatLabels(trend.labels);
  const rows = useMemo(
    () => mergeTrendRows([{ key, points: trend.points }]),
    [key, trend.points],
  );
  const lines = [
    {
      key,
      name: key || trend.metric,
      seriesIndex: 0,
      changes: changeMarkers(trend.points, trend.change_points, rows),
      window: null,
    },
  ];
  return (
    <>
      <h1>
        {trend.suite}/{trend.scenario} · {trend.metric}
        {key ? ` · ${key}` : ""}
      </h1>
      <p className="muted small">
        Branch {trend.branch}, run after run; circles and dashed verticals mark change points.
      </p>
      {rows.length === 0 ? (
        <EmptyState title="No runs yet" />
      ) : (
        <TrendChart rows={rows} lines={lines} thresholds={[]} unit={trend.unit} onOpenRun={() => {}} />
      )}
    </>
  );
}
