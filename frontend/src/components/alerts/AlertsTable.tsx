import { Fragment, useState, type ReactNode } from "react";
import { Link } from "react-router";

import type { AlertRead, Assignee } from "../../api/types";
import {
  actionable,
  alertLinks,
  alertNumbers,
  alertProfilesLink,
  assigneeName,
  groupByCommit,
  seriesLabels,
  severityTone,
  shortCommit,
  stateTone,
  type CommitGroup,
  type TriageAction,
} from "../../lib/alerts";
import { bisectionHref } from "../../lib/bisections";
import { formatDateTime, formatLabels } from "../../lib/format";
import { Badge } from "../common/Badge";
import { hidden, TableHead } from "../common/TableHead";

/** What the table needs to let a member triage: who may be assigned, the selection. */
export interface Triage {
  assignees: Assignee[];
  selected: ReadonlySet<number>;
  onSelect: (alertIds: number[], selected: boolean) => void;
  onAssign: (alert: AlertRead, assigneeId: number | null) => void;
}

/**
 * Alerts, newest first, under a header per commit (the alerts one commit caused, as its run
 * named it). Members select alerts (one by one or a commit's at once) for the triage bar, give
 * one to someone, and see Acknowledge (open alerts) and Resolve (open or acknowledged); every
 * alert can show its deliveries to the channels.
 */
export function AlertsTable({
  alerts,
  thresholdUnits,
  canWrite,
  pending,
  onAction,
  triage,
  deliveries,
}: {
  alerts: AlertRead[];
  thresholdUnits: Record<number, string>;
  canWrite: boolean;
  pending: number | null;
  onAction: (alert: AlertRead, action: TriageAction, note?: string) => void;
  triage: Triage;
  /** An alert's deliveries to the channels, shown under it on request. */
  deliveries: (alert: AlertRead) => ReactNode;
}) {
  const [expanded, setExpanded] = useState<number | null>(null);
  const [noting, setNoting] = useState<{ id: number; note: string } | null>(null);
  const columns = canWrite ? 9 : 8;
  return (
    <table className="table alerts-table">
      <TableHead
        columns={[
          canWrite && hidden("Selected"),
          ...["Severity", "State", "What", "Value", "Opened", "Assignee", "Links"],
          hidden("Actions"),
        ]}
      />
      {groupByCommit(alerts).map((group) => (
        <tbody key={group.commit ?? ""} data-commit={group.commit ?? ""}>
          <GroupHeader group={group} columns={columns} canWrite={canWrite} triage={triage} />
          {group.alerts.map((alert) => {
            const profiles = alertProfilesLink(alert);
            return (
              <Fragment key={alert.id}>
                <tr data-alert-id={alert.id}>
                  {canWrite && (
                    <td>
                      {alert.state !== "resolved" && (
                        <input
                          type="checkbox"
                          aria-label={`Select alert #${String(alert.id)}`}
                          checked={triage.selected.has(alert.id)}
                          onChange={(event) => triage.onSelect([alert.id], event.target.checked)}
                        />
                      )}
                    </td>
                  )}
                  <td>
                    <Badge tone={severityTone(alert.severity)}>{alert.severity}</Badge>
                  </td>
                  <td>
                    <Badge tone={stateTone(alert.state)}>{alert.state}</Badge>
                  </td>
                  <td className="wrap">
                    <strong>
                      {alert.suite} / {alert.scenario}
                    </strong>{" "}
                    <span className="muted">
                      {formatLabels(seriesLabels(alert))} · {alert.metric} · {alert.kind}
                    </span>
                    <div className="small">{alert.message}</div>
                    {alert.acknowledged_by_id !== null && (
                      <div className="small alert-note" data-testid="alert-acknowledged">
                        Acknowledged by {assigneeName(triage.assignees, alert.acknowledged_by_id)}
                        {alert.acknowledged_at && `, ${formatDateTime(alert.acknowledged_at)}`}
                        {alert.note && (
                          <>
                            : <span data-testid="alert-note">{alert.note}</span>
                          </>
                        )}
                      </div>
                    )}
                    {alert.resolution && <div className="small muted">{alert.resolution}</div>}
                  </td>
                  <td className="nowrap">
                    {alertNumbers(
                      alert,
                      alert.rule_id === null ? undefined : thresholdUnits[alert.rule_id],
                    )}
                  </td>
                  <td className="alert-opened">
                    {formatDateTime(alert.opened_at)}
                    {alert.occurrences > 1 && (
                      <div className="small muted">{alert.occurrences} times</div>
                    )}
                  </td>
                  <td>
                    <AssigneeCell alert={alert} canWrite={canWrite} triage={triage} />
                  </td>
                  <td className="alert-links">
                    {alertLinks(alert).map((link) => (
                      <Fragment key={link.text}>
                        <Link to={link.href}>{link.text}</Link>{" "}
                      </Fragment>
                    ))}
                    {alert.bisection_id !== null && (
                      <>
                        <Link
                          to={bisectionHref(alert.bisection_id)}
                          title="The search for the commit that caused it"
                        >
                          Bisection #{alert.bisection_id}
                        </Link>{" "}
                      </>
                    )}
                    {profiles && (
                      <>
                        <Link
                          to={profiles.href}
                          title="The confirmation run's differential flame graphs"
                        >
                          {profiles.text}
                        </Link>{" "}
                      </>
                    )}
                    <button
                      type="button"
                      className="link-button small"
                      aria-expanded={expanded === alert.id}
                      onClick={() => setExpanded(expanded === alert.id ? null : alert.id)}
                    >
                      Deliveries
                    </button>
                  </td>
                  <td>
                    <div className="actions">
                      {canWrite && alert.state === "open" && noting?.id !== alert.id && (
                        <button
                          type="button"
                          className="button button-small"
                          disabled={pending === alert.id}
                          onClick={() => setNoting({ id: alert.id, note: "" })}
                        >
                          Acknowledge
                        </button>
                      )}
                      {canWrite && alert.state === "open" && noting?.id === alert.id && (
                        <form
                          className="ack-form"
                          onSubmit={(event) => {
                            event.preventDefault();
                            onAction(alert, "acknowledge", noting.note.trim() || undefined);
                            setNoting(null);
                          }}
                        >
                          <input
                            aria-label={`Note for alert #${String(alert.id)}`}
                            placeholder="note (optional)"
                            maxLength={2000}
                            value={noting.note}
                            autoFocus
                            onChange={(event) =>
                              setNoting({ id: alert.id, note: event.target.value })
                            }
                          />
                          <button
                            type="submit"
                            className="button button-small"
                            disabled={pending === alert.id}
                          >
                            Acknowledge
                          </button>
                          <button
                            type="button"
                            className="link-button small"
                            onClick={() => setNoting(null)}
                          >
                            Cancel
                          </button>
                        </form>
                      )}
                      {canWrite && alert.state !== "resolved" && (
                        <button
                          type="button"
                          className="button button-small"
                          disabled={pending === alert.id}
                          onClick={() => onAction(alert, "resolve")}
                        >
                          Resolve
                        </button>
                      )}
                    </div>
                  </td>
                </tr>
                {expanded === alert.id && (
                  <tr className="detail-row">
                    <td colSpan={columns}>
                      {deliveries(alert)}
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      ))}
    </table>
  );
}

/** A commit's header: the commit, its branch(es), its count, and a box selecting its alerts
 * that are not resolved (the triage bar then acts on them all). */
function GroupHeader({
  group,
  columns,
  canWrite,
  triage,
}: {
  group: CommitGroup<AlertRead>;
  columns: number;
  canWrite: boolean;
  triage: Triage;
}) {
  const open = actionable(group.alerts, "resolve");
  const commit = group.commit === null ? "no commit" : `commit ${shortCommit(group.commit)}`;
  const count = group.alerts.length;
  return (
    <tr className="alert-group">
      <th scope="colgroup" colSpan={columns}>
        {canWrite && open.length > 0 && (
          <input
            type="checkbox"
            aria-label={`Select the alerts of ${commit}`}
            checked={open.every((id) => triage.selected.has(id))}
            onChange={(event) => triage.onSelect(open, event.target.checked)}
          />
        )}{" "}
        {group.commit === null ? (
          <span className="muted">No commit</span>
        ) : (
          <>
            Commit <code title={group.commit}>{shortCommit(group.commit)}</code>
          </>
        )}
        {group.branches.length > 0 && (
          <span className="muted"> on {group.branches.join(", ")}</span>
        )}
        <span className="muted">
          {" "}
          · {count} alert{count === 1 ? "" : "s"}
        </span>
      </th>
    </tr>
  );
}

function AssigneeCell({
  alert,
  canWrite,
  triage,
}: {
  alert: AlertRead;
  canWrite: boolean;
  triage: Triage;
}) {
  const current = alert.assignee_id;
  if (!canWrite) {
    return current === null ? (
      <span className="muted">—</span>
    ) : (
      <>{assigneeName(triage.assignees, current)}</>
    );
  }
  const known = current === null || triage.assignees.some((user) => user.id === current);
  return (
    <select
      aria-label={`Assignee of alert #${String(alert.id)}`}
      value={current ?? ""}
      onChange={(event) =>
        triage.onAssign(alert, event.target.value ? Number(event.target.value) : null)
      }
    >
      <option value="">nobody</option>
      {!known && <option value={current}>{assigneeName(triage.assignees, current)}</option>}
      {triage.assignees.map((user) => (
        <option key={user.id} value={user.id}>
          {user.name ?? user.email}
        </option>
      ))}
    </select>
  );
}
