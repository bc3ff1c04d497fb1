import { useMemo, useState } from "react";

import {
  useAlertAction,
  useAlerts,
  useAssign,
  useAssignees,
  useBulkAlertAction,
  useRules,
} from "../api/alerts";
import { usePermissions } from "../api/auth";
import { errorMessage } from "../api/client";
import type { AlertBulkAction, AlertListQuery, AlertRead } from "../api/types";
import { AlertsTable } from "../components/alerts/AlertsTable";
import { TriageBar } from "../components/alerts/TriageBar";
import { EmptyState, QueryResult } from "../components/common/Status";
import { Pagination } from "../components/runs/Pagination";
import { ALERT_STATES, SEVERITIES, assigneeName, type TriageAction } from "../lib/alerts";
import { usePageTitle } from "../hooks/usePageTitle";
import { useUrlFilters } from "../hooks/useUrlFilters";

const PAGE_SIZE = 50;

/**
 * Alerts by state, severity and assignee (?state=open&severity=critical&assignee=3), grouped
 * by the commit that caused them; members triage them here: one by one, or a selection (a
 * commit's alerts at once) acknowledged with a note or resolved.
 */
export function AlertsPage() {
  usePageTitle("Alerts");
  const filters = useUrlFilters();
  const { search } = filters;
  const state = ALERT_STATES.find((item) => item === search.get("state"));
  const severity = SEVERITIES.find((item) => item === search.get("severity"));
  const assignee = Math.max(0, Math.trunc(Number(search.get("assignee")) || 0));
  const offset = Math.max(0, Number(search.get("offset")) || 0);
  const query: AlertListQuery = {
    limit: PAGE_SIZE,
    offset,
    ...(state ? { state } : {}),
    ...(severity ? { severity } : {}),
    ...(assignee ? { assignee_id: assignee } : {}),
  };
  const alerts = useAlerts(query);
  const rules = useRules();
  const assignees = useAssignees();
  const action = useAlertAction();
  const bulk = useBulkAlertAction();
  const assign = useAssign();
  const { canWrite } = usePermissions();
  const [actionError, setActionError] = useState<string | null>(null);
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const selectedAlerts = (alerts.data?.items ?? []).filter((alert) => selected.has(alert.id));
  const thresholdUnits = useMemo(
    () => Object.fromEntries((rules.data ?? []).map((rule) => [rule.id, rule.unit])),
    [rules.data],
  );

  // A selection is of the alerts shown: another filter or page clears it.
  function setFilter(name: string, value: string) {
    filters.setFilter(name, value);
    setSelected(new Set());
  }

  function setOffset(offset: number) {
    filters.setOffset(offset);
    setSelected(new Set());
  }

  function select(alertIds: number[], on: boolean) {
    const next = new Set(selected);
    for (const id of alertIds) {
      if (on) next.add(id);
      else next.delete(id);
    }
    setSelected(next);
  }

  async function actOnSelected(body: AlertBulkAction): Promise<boolean> {
    setActionError(null);
    try {
      await bulk.mutateAsync(body);
      setSelected(new Set());
      return true;
    } catch (error) {
      const count = `${String(body.alert_ids.length)} alerts`;
      setActionError(`Could not ${body.action} ${count} (none changed): ${errorMessage(error)}`);
      return false;
    }
  }

  function assignTo(alert: AlertRead, assigneeId: number | null) {
    setActionError(null);
    assign.mutate(
      { alertId: alert.id, assigneeId },
      {
        onError: (error) =>
          setActionError(`Could not assign alert #${String(alert.id)}: ${errorMessage(error)}`),
      },
    );
  }

  function act(alert: AlertRead, kind: TriageAction, note?: string) {
    setActionError(null);
    action.mutate(
      { alertId: alert.id, action: kind, note },
      {
        onError: (error) =>
          setActionError(`Could not ${kind} alert #${String(alert.id)}: ${errorMessage(error)}`),
      },
    );
  }

  return (
    <section>
      <header className="page-header">
        <h1>Alerts</h1>
        {alerts.isFetching && !alerts.isPending && <span className="muted">Refreshing…</span>}
      </header>
      <div className="toolbar" role="group" aria-label="Filter alerts">
        <label>
          State{" "}
          <select value={state ?? ""} onChange={(event) => setFilter("state", event.target.value)}>
            <option value="">any</option>
            {ALERT_STATES.map((item) => (
              <option key={item} value={item}>
                {item}
              </option>
            ))}
          </select>
        </label>
        <label>
          Severity{" "}
          <select
            value={severity ?? ""}
            onChange={(event) => setFilter("severity", event.target.value)}
          >
            <option value="">any</option>
            {SEVERITIES.map((item) => (
              <option key={item} value={item}>
                {item}
              </option>
            ))}
          </select>
        </label>
        <label>
          Assignee{" "}
          <select
            value={assignee || ""}
            onChange={(event) => setFilter("assignee", event.target.value)}
          >
            <option value="">anyone</option>
            {assignee > 0 && !assignees.data?.some((user) => user.id === assignee) && (
              <option value={assignee}>{assigneeName([], assignee)}</option>
            )}
            {(assignees.data ?? []).map((user) => (
              <option key={user.id} value={user.id}>
                {user.name ?? user.email}
              </option>
            ))}
          </select>
        </label>
      </div>
      {canWrite && selectedAlerts.length > 0 && (
        <TriageBar
          selected={selectedAlerts}
          pending={bulk.isPending}
          onAct={actOnSelected}
          onClear={() => setSelected(new Set())}
        />
      )}
      {actionError && (
        <p className="form-error" role="alert">
          {actionError}
        </p>
      )}
      <QueryResult
        query={alerts}
        loading="Loading alerts…"
        isEmpty={(data) => data.items.length === 0}
        empty={
          <EmptyState title={state || severity || assignee ? "No alerts match" : "No alerts"}>
            Regressions, SLA breaches and change points raise alerts here.
          </EmptyState>
        }
      >
        {(data) => (
          <>
            <div className="table-scroll">
              <AlertsTable
                alerts={data.items}
                thresholdUnits={thresholdUnits}
                canWrite={canWrite}
                pending={action.isPending ? (action.variables?.alertId ?? null) : null}
                onAction={act}
                triage={{
                  assignees: assignees.data ?? [],
                  selected,
                  onSelect: select,
                  onAssign: assignTo,
                }}
              />
            </div>
            <Pagination
              total={data.total}
              limit={PAGE_SIZE}
              offset={offset}
              onOffsetChange={setOffset}
            />
          </>
        )}
      </QueryResult>
    </section>
  );
}
