import type { ReactNode } from "react";
import { Link } from "react-router";

import { useAlerts } from "../api/alerts";
import { errorMessage } from "../api/client";
import { useHosts, useSuites } from "../api/hosts";
import { useJobs } from "../api/jobs";
import { useLatestRuns, useRuns } from "../api/runs";
import { Badge } from "../components/common/Badge";
import { ProgressBar } from "../components/common/ProgressBar";
import { EmptyState, ErrorState, Loading } from "../components/common/Status";
import { RunVerdictBadge } from "../components/common/VerdictBadge";
import { alertLink, severityTone } from "../lib/alerts";
import { formatDateTime, shortCommit } from "../lib/format";
import { isActive } from "../lib/jobs";
import { hostCounts } from "../lib/overview";
import { usePageTitle } from "../hooks/usePageTitle";

export function OverviewPage() {
  usePageTitle("Overview");
  return (
    <section>
      <header className="page-header">
        <h1>Overview</h1>
      </header>
      <div className="overview">
        <OpenAlerts />
        <LatestRuns />
        <Hosts />
        <RunningJobs />
      </div>
    </section>
  );
}

function Card({
  title,
  link,
  children,
}: {
  title: string;
  link: { to: string; text: string };
  children: ReactNode;
}) {
  const id = `card-${title.toLowerCase().replace(/\W+/g, "-")}`;
  return (
    <section className="panel card" aria-labelledby={id}>
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
      {alerts.isPending ? (
        <Loading label="Loading alerts…" />
      ) : alerts.isError ? (
        <ErrorState message={errorMessage(alerts.error)} onRetry={() => void alerts.refetch()} />
      ) : alerts.data.total === 0 ? (
        <EmptyState title="No open alerts" />
      ) : (
        <>
          <p className="big-number">
            <strong>{alerts.data.total}</strong> open
          </p>
          <ul className="plain-list">
            {alerts.data.items.map((alert) => {
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
    </Card>
  );
}

/** Suites from the catalogue and from recent runs, each with its newest run. */
function LatestRuns() {
  const suites = useSuites();
  const recent = useRuns({ limit: 100, offset: 0 });
  const names = [
    ...new Set([
      ...(suites.data?.map((suite) => suite.id) ?? []),
      ...(recent.data?.items.map((run) => run.suite) ?? []),
    ]),
  ].sort();
  const latest = useLatestRuns(suites.isPending || recent.isPending ? [] : names);
  const error = recent.error ?? latest.error;
  return (
    <Card title="Latest run per suite" link={{ to: "/runs", text: "All runs" }}>
      {recent.isPending || suites.isPending || latest.isPending ? (
        <Loading label="Loading runs…" />
      ) : error ? (
        <ErrorState message={errorMessage(error)} onRetry={() => void recent.refetch()} />
      ) : names.length === 0 ? (
        <EmptyState title="No runs yet">
          Runs appear when CI submits results or a job finishes.
        </EmptyState>
      ) : (
        <table className="table compact">
          <thead>
            <tr>
              <th scope="col">Suite</th>
              <th scope="col">Run</th>
              <th scope="col">Verdict</th>
              <th scope="col">Started</th>
            </tr>
          </thead>
          <tbody>
            {names.map((suite) => {
              const run = latest.data.find((item) => item.suite === suite);
              return (
                <tr key={suite} data-suite={suite}>
                  <th scope="row">{suite}</th>
                  {run === undefined ? (
                    <td colSpan={3} className="muted">
                      no runs yet
                    </td>
                  ) : (
                    <>
                      <td>
                        <Link to={`/runs/${String(run.id)}`}>#{run.id}</Link>{" "}
                        <span className="muted small">
                          {[
                            run.scenario,
                            run.source.branch,
                            run.source.commit && shortCommit(run.source.commit),
                          ]
                            .filter(Boolean)
                            .join(" · ")}
                        </span>
                      </td>
                      <td>
                        <RunVerdictBadge verdict={run.verdict} />
                      </td>
                      <td className="small">{formatDateTime(run.started_at)}</td>
                    </>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </Card>
  );
}

function Hosts() {
  const hosts = useHosts();
  return (
    <Card title="Hosts" link={{ to: "/hosts", text: "All hosts" }}>
      {hosts.isPending ? (
        <Loading label="Loading hosts…" />
      ) : hosts.isError ? (
        <ErrorState message={errorMessage(hosts.error)} onRetry={() => void hosts.refetch()} />
      ) : hosts.data.length === 0 ? (
        <EmptyState title="No hosts yet">Start a runner worker on a lab host.</EmptyState>
      ) : (
        <>
          <p className="big-number">
            <strong className="text-good">{hostCounts(hosts.data).online}</strong> online ·{" "}
            <strong className={hostCounts(hosts.data).offline > 0 ? "text-bad" : undefined}>
              {hostCounts(hosts.data).offline}
            </strong>{" "}
            offline
          </p>
          <ul className="plain-list">
            {hosts.data.map((host) => (
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
    </Card>
  );
}

function RunningJobs() {
  const jobs = useJobs({ limit: 50, offset: 0 });
  const active = jobs.data?.items.filter((job) => isActive(job.status)) ?? [];
  return (
    <Card title="Running jobs" link={{ to: "/jobs", text: "All jobs" }}>
      {jobs.isPending ? (
        <Loading label="Loading jobs…" />
      ) : jobs.isError ? (
        <ErrorState message={errorMessage(jobs.error)} onRetry={() => void jobs.refetch()} />
      ) : active.length === 0 ? (
        <EmptyState title="No job running" />
      ) : (
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
    </Card>
  );
}
