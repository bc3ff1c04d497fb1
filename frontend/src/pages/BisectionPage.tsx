import { useState } from "react";
import { Link, useLocation, useParams } from "react-router";

import { usePermissions } from "../api/auth";
import { BISECTION_POLL_MS, useBisection, useCancelBisection } from "../api/bisections";
import { errorMessage } from "../api/client";
import { isRunning } from "../api/states";
import type { BisectionRead } from "../api/types";
import { BisectionResult } from "../components/bisections/BisectionResult";
import { CommitStrip } from "../components/bisections/CommitStrip";
import { StepsTable } from "../components/bisections/StepsTable";
import { Badge } from "../components/common/Badge";
import { MetaItem } from "../components/common/Meta";
import { EmptyState, ErrorState, QueryResult } from "../components/common/Status";
import { CommitLink } from "../components/repos/CommitLink";
import { usePageTitle } from "../hooks/usePageTitle";
import { STATUS, stepMinutes } from "../lib/bisections";
import { formatDateTime, formatLabels, shortCommit, stringLabels } from "../lib/format";
import { repositoryHref } from "../lib/repos";
import { formatParams } from "../lib/trends";

/** /bisections/:id: what it searches, its range as a strip, how it ended, and its steps. */
export function BisectionPage() {
  const { bisectionId } = useParams();
  const id = Number(bisectionId);
  usePageTitle(`Bisection #${bisectionId ?? ""}`);
  if (!Number.isInteger(id) || id < 1) {
    return (
      <ErrorState
        title="No such bisection"
        message={`"${bisectionId ?? ""}" is not a bisection id.`}
      />
    );
  }
  return <Bisection bisectionId={id} />;
}

function Bisection({ bisectionId }: { bisectionId: number }) {
  const bisection = useBisection(bisectionId);
  return (
    <section>
      <p className="breadcrumb">
        <Link to="/bisections">Bisections</Link> / #{bisectionId}
      </p>
      <QueryResult
        query={bisection}
        loading="Loading the bisection…"
        missing={`Bisection #${String(bisectionId)} does not exist`}
      >
        {(found) => <BisectionBody bisection={found} />}
      </QueryResult>
    </section>
  );
}

function BisectionBody({ bisection }: { bisection: BisectionRead }) {
  const { canWrite } = usePermissions();
  const cancel = useCancelBisection();
  const [cancelError, setCancelError] = useState<string | null>(null);
  // Started from the form, where the same question asked before answers with its bisection.
  const existing = (useLocation().state as { existing?: boolean } | null)?.existing === true;
  const running = isRunning(bisection.status);
  const status = STATUS[bisection.status];

  function onCancel() {
    setCancelError(null);
    cancel.mutate(bisection.id, {
      onError: (error) => setCancelError(`Could not cancel: ${errorMessage(error)}`),
    });
  }

  return (
    <>
      <header className="page-header">
        <h1>Bisection #{bisection.id}</h1>
        <span data-testid="bisection-status" data-status={bisection.status}>
          <Badge tone={status.tone}>{status.text}</Badge>
        </span>
        {running && (
          <span className="muted small">
            refreshes every {BISECTION_POLL_MS / 1000} s while it runs
          </span>
        )}
        {canWrite && running && (
          <div className="page-actions">
            <button
              type="button"
              className="button"
              disabled={cancel.isPending}
              onClick={onCancel}
            >
              {cancel.isPending ? "Cancelling…" : "Cancel the bisection"}
            </button>
          </div>
        )}
      </header>
      {existing && (
        <p className="notice" role="status">
          The same question was asked before: this is its bisection.
        </p>
      )}
      {cancelError && (
        <p className="form-error" role="alert">
          {cancelError}
        </p>
      )}
      <p className="headline" data-testid="bisection-message">
        {bisection.message ?? (running ? "Searching…" : "")}
      </p>
      <dl className="meta">
        <MetaItem term="Repository">
          <Link to={repositoryHref(bisection.repo)}>{bisection.repo}</Link>{" "}
          <span className="mono">
            <CommitLink sha={bisection.good} commitUrl={bisection.commit_url}>
              <span title={bisection.good}>{shortCommit(bisection.good)}</span>
            </CommitLink>
            ..
            <CommitLink sha={bisection.bad} commitUrl={bisection.commit_url}>
              <span title={bisection.bad}>{shortCommit(bisection.bad)}</span>
            </CommitLink>
          </span>
        </MetaItem>
        <MetaItem term="Suite / scenario">
          {bisection.suite} / {bisection.scenario}
        </MetaItem>
        <MetaItem term="Metric">{bisection.metric}</MetaItem>
        <MetaItem term="Series">
          {Object.keys(bisection.series).length > 0
            ? formatLabels(stringLabels(bisection.series))
            : "any series of the run"}
        </MetaItem>
        <MetaItem term="Params" wide className="mono">{formatParams(bisection.params)}</MetaItem>
        <MetaItem term="Lab time">
          {stepMinutes(bisection.steps)}
          {bisection.max_minutes !== null && ` of at most ${String(bisection.max_minutes)} min`}
        </MetaItem>
        <MetaItem term="Started">{formatDateTime(bisection.created_at)}</MetaItem>
        <MetaItem term="Finished">{formatDateTime(bisection.finished_at)}</MetaItem>
      </dl>

      <h2>Commits</h2>
      <CommitStrip commits={bisection.commits} commitUrl={bisection.commit_url} />

      <BisectionResult bisection={bisection} />

      <h2>Steps</h2>
      {bisection.steps.length === 0 ? (
        <EmptyState title="No step yet" />
      ) : (
        <div className="table-scroll">
          <StepsTable steps={bisection.steps} running={running} commitUrl={bisection.commit_url} />
        </div>
      )}
    </>
  );
}
