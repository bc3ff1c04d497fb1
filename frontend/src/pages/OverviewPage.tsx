import { useMemo, useState, type ReactNode } from "react";
import { Link } from "react-router";

import { useAlerts } from "../api/alerts";
import { useHosts } from "../api/hosts";
import { useJobs } from "../api/jobs";
import { useOverview } from "../api/runs";
import { isActive } from "../api/states";
import type { OverviewRow } from "../api/types";
import { Sparkline } from "../components/charts/Sparkline";
import { Badge } from "../components/common/Badge";
import { ProgressBar } from "../components/common/ProgressBar";
import { RunLink } from "../components/common/RunLink";
import { EmptyState, QueryResult } from "../components/common/Status";
import { TableHead } from "../components/common/TableHead";
import { RunVerdictBadge } from "../components/common/VerdictBadge";
import { Page } from "../components/layout/Page";
import { Pagination } from "../components/runs/Pagination";
import { WindowDelta } from "../components/runs/WindowDelta";
import { usePageTitle } from "../hooks/usePageTitle";
import { alertLink, severityTone } from "../lib/alerts";
import { formatDateTime, formatLabels, shortCommit, stringLabels } from "../lib/format";
import { hostCounts } from "../lib/overview";
import { relativeToMedian, sharedDomain } from "../lib/sparkline";
import { formatValue } from "../lib/units";

export function OverviewPage() {
  usePageTitle("Overview");
  return (
    <Page title="Overview">
      <div className="overview">
        <OpenAlerts />
        <RunningJobs />
        <LatestRuns />
        <Hosts />
      </div>
    </Page>
  );
}

function Card({
  title,
  link,
  wide = false,
  children,
}: {
  title: string;
  link: { to: string; text: string };
  wide?: boolean;
  children: ReactNode;
}) {
  const id = `card-${title.toLowerCase().replace(/\W+/g, "-")}`;
  return (
    <section className={`panel card${wide ? " card-wide" : ""}`} aria-labelledby={id}>
      <header className="card-header">
        <h2 id={id}>{title}</h2>
        <Link to={link.to} className="small">
          {link.text}
        </Link>
      </header>
      {children}
    </section>
  );
}

function OpenAlerts() {
  const alerts = useAlerts({ state: "open", limit: 5, offset: 0 });
  return (
    <Card title="Open alerts" link={{ to: "/alerts?state=open", text: "All alerts" }}>
      <QueryResult
        query={alerts}
        loading="Loading alerts…"
        isEmpty={(data) => data.total === 0}
        empty={
          <EmptyState title="No open alerts" />
        }
      >
        {(data) => (
          <>
            <p className="big-number">
              <strong>{data.total}</strong> open
            </p>
            <ul className="plain-list">
              {data.items.map((alert) => {
                const link = alertLink(alert);
                return (
                  <li key={alert.id}>
                    <Badge tone={severityTone(alert.severity)}>{alert.severity}</Badge>{" "}
                    {link ? <Link to={link.href}>{alert.message}</Link> : alert.message}
                  </li>
                );
              })}
            </ul>
          </>
        )}
      </QueryResult>
    </Card>
  );
}

/**
 * Every suite and scenario with its latest run (failing first: its gate failed or a critical
 * alert is open), its open alerts and a sparkline of its latest runs' headline P99.
 */
function LatestRuns() {
  const [offset, setOffset] = useState(0);
  const overview = useOverview({ limit: OVERVIEW_PAGE, offset });
  const sparks = useMemo(() => sharedSparks(overview.data?.items ?? []), [overview.data]);
  return (
    <Card title="Latest run per suite and scenario" link={{ to: "/runs", text: "All runs" }} wide>
      <QueryResult
        query={overview}
        loading="Loading runs…"
        isEmpty={(data) => data.total === 0 && data.suites_without_runs.length === 0}
        empty={
          <EmptyState title="No runs yet">
            Runs appear when CI submits results or a job finishes.
          </EmptyState>
        }
      >
        {(data) => (
          <>
            <table className="table compact overview-runs">
              <TableHead
                columns={[
                  "Suite / scenario",
                  "Latest run",
                  "Verdict",
                  {
                    label: (
                      <>
                        P99 of its latest runs{" "}
                        <span className="muted small">
                          (each as % of its median, one scale for all)
                        </span>
                      </>
                    ),
                    key: "p99",
                  },
                  "Started",
                ]}
              />
              <tbody>
                {data.items.map((row, index) => (
                  <OverviewLine
                    key={`${row.run.suite}/${row.run.scenario}`}
                    row={row}
                    spark={sparks.values[index] ?? []}
                    domain={sparks.domain}
                  />
                ))}
              </tbody>
            </table>
            <Pagination
              total={data.total}
              capped={false}
              limit={data.limit}
              offset={data.offset}
              onOffsetChange={setOffset}
            />
            {data.suites_without_runs.length > 0 && (
              <p className="muted small">
                No runs yet: {data.suites_without_runs.join(", ")}
              </p>
            )}
          </>
        )}
      </QueryResult>
    </Card>
  );
}

const OVERVIEW_PAGE = 25;

/** Every row's sparkline as % of its median, and the one scale they share. */
function sharedSparks(rows: OverviewRow[]) {
  const values = rows.map((row) => relativeToMedian(row.spark.map((point) => point.p99)));
  return { values, domain: sharedDomain(values) };
}

function OverviewLine({
  row,
  spark,
  domain,
}: {
  row: OverviewRow;
  spark: (number | null)[];
  domain: [number, number];
}) {
  const { run } = row;
  const headline = run.headline;
  return (
    <tr data-suite={run.suite} data-scenario={run.scenario} className={row.failing ? "failing" : undefined}>
      <th scope="row">
        <Link to={`/runs?suite=${encodeURIComponent(run.suite)}&scenario=${encodeURIComponent(run.scenario)}`}>
          {run.suite} / {run.scenario}
        </Link>
        {row.open_alerts > 0 && (
          <>
            {" "}
            <Link to={`/alerts?state=open`}>
              <Badge tone={row.critical_alerts > 0 ? "bad" : "neutral"}>
                {row.open_alerts} open alert{row.open_alerts === 1 ? "" : "s"}
              </Badge>
            </Link>
          </>
        )}
      </th>
      <td>
        <RunLink id={run.id} />{" "}
        <span className="muted small">
          {[run.source.branch, run.source.commit && shortCommit(run.source.commit)]
            .filter(Boolean)
            .join(" · ")}
        </span>
      </td>
      <td>
        <RunVerdictBadge verdict={run.verdict} />
      </td>
      <td>
        {headline?.p99 != null && (
          <span className="spark-cell">
            <Sparkline
              values={spark}
              domain={domain}
              label={`P99 of ${formatLabels(stringLabels(headline.series))} over the last ${String(row.spark.length)} runs, as % of its median (±${String(Math.round(domain[1]))} % shared by every row)`}
            />
            <span
              className="small"
              title={headline.p99_interpolated ? "interpolated: the harness printed no P99" : undefined}
            >
              {(headline.p99_interpolated ? "~" : "") + formatValue(headline.p99, "ns")}
            </span>
            <WindowDelta pct={headline.window_delta_pct ?? null} />
            <span className="muted small">{formatLabels(stringLabels(headline.series))}</span>
          </span>
        )}
      </td>
      <td className="small">{formatDateTime(run.started_at)}</td>
    </tr>
  );
}

function Hosts() {
  const hosts = useHosts();
  return (
    <Card title="Hosts" link={{ to: "/hosts", text: "All hosts" }}>
      <QueryResult
        query={hosts}
        loading="Loading hosts…"
        isEmpty={(data) => data.length === 0}
        empty={
          <EmptyState title="No hosts yet">Start a runner worker on a lab host.</EmptyState>
        }
      >
        {(data) => (
          <>
            <p className="big-number">
              <strong className="text-good">{hostCounts(data).online}</strong> online ·{" "}
              <strong className={hostCounts(data).offline > 0 ? "text-bad" : undefined}>
                {hostCounts(data).offline}
              </strong>{" "}
              offline
            </p>
            <ul className="plain-list">
              {data.map((host) => (
                <li key={host.id}>
                  <Badge tone={host.online ? "good" : "bad"}>
                    {host.online ? "online" : "offline"}
                  </Badge>{" "}
                  {host.name}
                  {host.tags.length > 0 && (
                    <span className="muted small"> ({host.tags.join(", ")})</span>
                  )}
                  {host.current_job && (
                    <span className="muted small"> · running job #{host.current_job.id}</span>
                  )}
                </li>
              ))}
            </ul>
          </>
        )}
      </QueryResult>
    </Card>
  );
}

function RunningJobs() {
  const jobs = useJobs({ limit: 50, offset: 0 });
  const active = jobs.data?.items.filter((job) => isActive(job.status)) ?? [];
  return (
    <Card title="Running jobs" link={{ to: "/jobs", text: "All jobs" }}>
      <QueryResult
        query={jobs}
        loading="Loading jobs…"
        isEmpty={() => active.length === 0}
        empty={
          <EmptyState title="No job running" />
        }
      >
        {() => (
          <ul className="plain-list">
            {active.map((job) => (
              <li key={job.id} className="job-line">
                <Link to={`/jobs?job=${String(job.id)}`}>
                  #{job.id} {job.suite} / {job.scenario}
                </Link>{" "}
                <span className="muted small">
                  {job.status}
                  {job.host_name ? ` on ${job.host_name}` : ""}
                </span>
                <ProgressBar value={job.progress} label={job.phase ?? job.status} />
              </li>
            ))}
          </ul>
        )}
      </QueryResult>
    </Card>
  );
}
