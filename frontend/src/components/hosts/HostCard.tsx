import { Link } from "react-router";

import { errorMessage } from "../../api/client";
import { useRevokeHost } from "../../api/hosts";
import type { HostRead } from "../../api/types";
import { formatDateTime } from "../../lib/format";
import { Badge } from "../common/Badge";
import { ConfirmButton } from "../common/ConfirmButton";
import { ProgressBar } from "../common/ProgressBar";
import { Fingerprint, TuningTable } from "./Fingerprint";

export function HostCard({ host, canRevoke }: { host: HostRead; canRevoke: boolean }) {
  const revoke = useRevokeHost();
  const ok = host.tuning.filter((check) => check.ok === true).length;
  const off = host.tuning.filter((check) => check.ok === false).length;
  return (
    <article
      className="panel host-card"
      aria-labelledby={`host-${String(host.id)}`}
      data-host={host.name}
    >
      <header className="host-header">
        <h2 id={`host-${String(host.id)}`}>{host.name}</h2>
        <Badge tone={host.online ? "good" : "bad"}>{host.online ? "online" : "offline"}</Badge>
        {host.tags.map((tag) => (
          <Badge key={tag} tone="info">
            {tag}
          </Badge>
        ))}
        {host.enrolled_at === null && <Badge tone="neutral">not enrolled</Badge>}
        {canRevoke && host.enrolled_at !== null && (
          <ConfirmButton
            label="Revoke"
            accessibleName={`Revoke host ${host.name}`}
            onConfirm={() => revoke.mutate(host.id)}
            disabled={revoke.isPending}
          />
        )}
        {revoke.isError && <span className="text-bad">{errorMessage(revoke.error)}</span>}
      </header>
      <dl className="kv">
        <div>
          <dt>Address</dt>
          <dd className="mono">{host.address ?? "—"}</dd>
        </div>
        <div>
          <dt>Last heartbeat</dt>
          <dd>{formatDateTime(host.last_heartbeat_at)}</dd>
        </div>
        <div>
          <dt>Suites</dt>
          <dd>{host.suites.length > 0 ? host.suites.join(", ") : "—"}</dd>
        </div>
        <div>
          <dt>Serves</dt>
          <dd>{host.projects ? host.projects.join(", ") : "every project"}</dd>
        </div>
        <div>
          <dt>Current job</dt>
          <dd>
            {host.current_job ? (
              <span className="current-job">
                <Link to={`/jobs?job=${String(host.current_job.id)}`}>
                  #{host.current_job.id} {host.current_job.suite} / {host.current_job.scenario}
                </Link>{" "}
                <span className="muted">
                  {host.current_job.status}
                  {host.current_job.phase ? ` · ${host.current_job.phase}` : ""}
                </span>
                <ProgressBar
                  value={host.current_job.progress}
                  label={host.current_job.phase ?? host.current_job.status}
                />
              </span>
            ) : (
              <span className="muted">{host.busy ? "busy with another project's job" : "idle"}</span>
            )}
          </dd>
        </div>
      </dl>
      <details>
        <summary>
          Tuning checks: {ok} ok, {off} off, {host.tuning.length - ok - off} unknown
        </summary>
        <div className="table-scroll">
          <TuningTable checks={host.tuning} />
        </div>
      </details>
      <details>
        <summary>Fingerprint</summary>
        <Fingerprint fingerprint={host.fingerprint} />
      </details>
    </article>
  );
}
