import { useMemo, useState } from "react";
import { useSearchParams } from "react-router";

import { useAlertAction, useAlerts, useRules } from "../api/alerts";
import { usePermissions } from "../api/auth";
import { errorMessage } from "../api/client";
import type { AlertListQuery, AlertRead } from "../api/types";
import { AlertsTable, type AlertAction } from "../components/alerts/AlertsTable";
import { EmptyState, ErrorState, Loading } from "../components/common/Status";
import { Pagination } from "../components/runs/Pagination";
import { ALERT_STATES, SEVERITIES } from "../lib/alerts";
import { usePageTitle } from "../hooks/usePageTitle";

const PAGE_SIZE = 50;

/** Alerts by state and severity (?state=open&severity=critical); members triage them here. */
export function AlertsPage() {
  usePageTitle("Alerts");
  const [search, setSearch] = useSearchParams();
  const state = ALERT_STATES.find((item) => item === search.get("state"));
  const severity = SEVERITIES.find((item) => item === search.get("severity"));
  const offset = Math.max(0, Number(search.get("offset")) || 0);
  const query: AlertListQuery = {
    limit: PAGE_SIZE,
    offset,
    ...(state ? { state } : {}),
    ...(severity ? { severity } : {}),
  };
  const alerts = useAlerts(query);
  const rules = useRules();
  const action = useAlertAction();
  const { canWrite } = usePermissions();
  const [actionError, setActionError] = useState<string | null>(null);
  const thresholdUnits = useMemo(
    () => Object.fromEntries((rules.data ?? []).map((rule) => [rule.id, rule.unit])),
    [rules.data],
  );

  function setParam(name: string, value: string) {
    const next = new URLSearchParams(search);
    if (value) next.set(name, value);
    else next.delete(name);
    if (name !== "offset") next.delete("offset");
    setSearch(next);
  }

  function act(alert: AlertRead, kind: AlertAction) {
    setActionError(null);
    action.mutate(
      { alertId: alert.id, action: kind },
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
          <select value={state ?? ""} onChange={(event) => setParam("state", event.target.value)}>
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
            onChange={(event) => setParam("severity", event.target.value)}
          >
            <option value="">any</option>
            {SEVERITIES.map((item) => (
              <option key={item} value={item}>
                {item}
              </option>
            ))}
          </select>
        </label>
      </div>
      {actionError && (
        <p className="form-error" role="alert">
          {actionError}
        </p>
      )}
      {alerts.isPending ? (
        <Loading label="Loading alerts…" />
      ) : alerts.isError ? (
        <ErrorState message={errorMessage(alerts.error)} onRetry={() => void alerts.refetch()} />
      ) : alerts.data.items.length === 0 ? (
        <EmptyState title={state || severity ? "No alerts match" : "No alerts"}>
          Regressions, SLA breaches and change points raise alerts here.
        </EmptyState>
      ) : (
        <>
          <div className="table-scroll">
            <AlertsTable
              alerts={alerts.data.items}
              thresholdUnits={thresholdUnits}
              canWrite={canWrite}
              pending={action.isPending ? (action.variables?.alertId ?? null) : null}
              onAction={act}
            />
          </div>
          <Pagination
            total={alerts.data.total}
            limit={PAGE_SIZE}
            offset={offset}
            onOffsetChange={(next) => setParam("offset", next > 0 ? String(next) : "")}
          />
        </>
      )}
    </section>
  );
}
