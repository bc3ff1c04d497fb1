import { Fragment, useState } from "react";
import { Link } from "react-router";

import { useDeliveries } from "../../api/alerts";
import { errorMessage } from "../../api/client";
import type { AlertRead } from "../../api/types";
import {
  alertLink,
  alertNumbers,
  alertProfilesLink,
  severityTone,
  stateTone,
} from "../../lib/alerts";
import { formatDateTime, formatLabels } from "../../lib/format";
import { Badge } from "../common/Badge";

export type AlertAction = "acknowledge" | "resolve";

/**
 * Alerts, newest first. Members see Acknowledge (open alerts) and Resolve (open or
 * acknowledged); every alert can show its deliveries to the channels.
 */
export function AlertsTable({
  alerts,
  thresholdUnits,
  canWrite,
  pending,
  onAction,
}: {
  alerts: AlertRead[];
  thresholdUnits: Record<number, string>;
  canWrite: boolean;
  pending: number | null;
  onAction: (alert: AlertRead, action: AlertAction) => void;
}) {
  const [expanded, setExpanded] = useState<number | null>(null);
  return (
    <table className="table alerts-table">
      <thead>
        <tr>
          <th scope="col">Severity</th>
          <th scope="col">State</th>
          <th scope="col">What</th>
          <th scope="col">Value</th>
          <th scope="col">Opened</th>
          <th scope="col">Links</th>
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {alerts.map((alert) => {
          const link = alertLink(alert);
          const profiles = alertProfilesLink(alert);
          const labels = Object.fromEntries(
            Object.entries(alert.series_labels).map(([key, value]) => [key, String(value)]),
          );
          return (
            <Fragment key={alert.id}>
              <tr data-alert-id={alert.id}>
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
                    {formatLabels(labels)} · {alert.metric} · {alert.kind}
                  </span>
                  <div className="small">{alert.message}</div>
                  {alert.resolution && <div className="small muted">{alert.resolution}</div>}
                </td>
                <td className="nowrap">
                  {alertNumbers(
                    alert,
                    alert.rule_id === null ? undefined : thresholdUnits[alert.rule_id],
                  )}
                </td>
                <td className="nowrap">
                  {formatDateTime(alert.opened_at)}
                  {alert.occurrences > 1 && (
                    <div className="small muted">{alert.occurrences} times</div>
                  )}
                </td>
                <td className="nowrap">
                  {link && <Link to={link.href}>{link.text}</Link>}{" "}
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
                    {canWrite && alert.state === "open" && (
                      <button
                        type="button"
                        className="button button-small"
                        disabled={pending === alert.id}
                        onClick={() => onAction(alert, "acknowledge")}
                      >
                        Acknowledge
                      </button>
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
                  <td colSpan={7}>
                    <Deliveries alertId={alert.id} />
                  </td>
                </tr>
              )}
            </Fragment>
          );
        })}
      </tbody>
    </table>
  );
}

function Deliveries({ alertId }: { alertId: number }) {
  const deliveries = useDeliveries(alertId);
  if (deliveries.isPending) return <span className="muted">Loading deliveries…</span>;
  if (deliveries.isError)
    return <span className="field-error">{errorMessage(deliveries.error)}</span>;
  if (deliveries.data.length === 0)
    return <span className="muted">No message sent (no channel).</span>;
  return (
    <ul className="inline-list">
      {deliveries.data.map((delivery) => (
        <li key={delivery.id}>
          {delivery.event} to channel #{delivery.channel_id}:{" "}
          <Badge
            tone={
              delivery.status === "sent" ? "good" : delivery.status === "failed" ? "bad" : "unknown"
            }
          >
            {delivery.status}
          </Badge>{" "}
          after {delivery.attempts} attempt{delivery.attempts === 1 ? "" : "s"}
          {delivery.sent_at && ` at ${formatDateTime(delivery.sent_at)}`}
          {delivery.last_error && <span className="muted"> — {delivery.last_error}</span>}
        </li>
      ))}
    </ul>
  );
}
