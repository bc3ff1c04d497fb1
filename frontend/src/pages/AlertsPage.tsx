import { useMemo, useState } from "react";

import {
  useAlertAction,
  useAlerts,
  useAssign,
  useAssignees,
  useBulkAlertAction,
  useDeliveries,
  useRules,
} from "../api/alerts";
import { usePermissions } from "../api/auth";
import { errorMessage } from "../api/client";
import type { AlertBulkAction, AlertListQuery, AlertRead } from "../api/types";
import { AlertsTable } from "../components/alerts/AlertsTable";
import { Deliveries } from "../components/alerts/Deliveries";
import { TriageBar } from "../components/alerts/TriageBar";
import { LabelledSelect } from "../components/common/Select";
import { EmptyState } from "../components/common/Status";
import { Page } from "../components/layout/Page";
import { PagedResult } from "../components/runs/Pagination";
import { usePageTitle } from "../hooks/usePageTitle";
import { useUrlFilters } from "../hooks/useUrlFilters";
import { ALERT_STATES, SEVERITIES, assigneeName, type TriageAction } from "../lib/alerts";

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
    <Page
      title="Alerts"
      aside={alerts.isFetching && !alerts.isPending && <span className="muted">Refreshing…</span>}
    >
      <div className="toolbar" role="group" aria-label="Filter alerts">
        <LabelledSelect
          label="State"
          value={state ?? ""}
          blank="any"
          options={ALERT_STATES}
          onChange={(value) => setFilter("state", value)}
        />
        <LabelledSelect
          label="Severity"
          value={severity ?? ""}
          blank="any"
          options={SEVERITIES}
          onChange={(value) => setFilter("severity", value)}
        />
        <LabelledSelect
          label="Assignee"
          value={assignee || ""}
          blank="anyone"
          options={[
            ...(assignee > 0 && !assignees.data?.some((user) => user.id === assignee)
              ? [{ value: assignee, text: assigneeName([], assignee) }]
              : []),
            ...(assignees.data ?? []).map((user) => ({
              value: user.id,
              text: user.name ?? user.email,
            })),
          ]}
          onChange={(value) => setFilter("assignee", value)}
        />
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
      <PagedResult
        query={alerts}
        loading="Loading alerts…"
        limit={PAGE_SIZE}
        offset={offset}
        onOffsetChange={setOffset}
        empty={
          <EmptyState title={state || severity || assignee ? "No alerts match" : "No alerts"}>
            Regressions, SLA breaches and change points raise alerts here.
          </EmptyState>
        }
      >
        {(items) => (
          <AlertsTable
            alerts={items}
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
            deliveries={(alert) => <AlertDeliveries alertId={alert.id} />}
          />
        )}
      </PagedResult>
    </Page>
  );
}

function AlertDeliveries({ alertId }: { alertId: number }) {
  return <Deliveries deliveries={useDeliveries(alertId)} />;
}
