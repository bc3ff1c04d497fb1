import { keepPreviousData, useMutation, useQuery } from "@tanstack/react-query";

import { api, unwrap } from "./client";
import { useWrite } from "./hooks";
import { keys } from "./keys";
import type { AlertBulkAction, AlertListQuery, ChannelCreate, SlaRuleCreate } from "./types";

/** What a member does to an alert: acknowledge it (with a note) or resolve it. */
type Triage = AlertBulkAction["action"];

export function useAlerts(query: AlertListQuery) {
  return useQuery({
    queryKey: keys.alerts.list(query),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/alerts", { params: { query }, signal })),
    placeholderData: keepPreviousData,
    refetchInterval: 15_000,
  });
}

export function useDeliveries(alertId: number) {
  return useQuery({
    queryKey: keys.alerts.deliveries(alertId),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/v1/alerts/{alert_id}/deliveries", {
          params: { path: { alert_id: alertId } },
          signal,
        }),
      ),
  });
}

export function useAlertAction() {
  return useWrite(
    ({ alertId, action, note }: { alertId: number; action: Triage; note?: string }) => {
      const params = { path: { alert_id: alertId } };
      return unwrap(
        action === "acknowledge"
          ? api.POST("/api/v1/alerts/{alert_id}/acknowledge", {
              params,
              body: note ? { note } : undefined,
            })
          : api.POST("/api/v1/alerts/{alert_id}/resolve", { params }),
      );
    },
    [keys.alerts.all],
    "settled",
  );
}

/** Acknowledges (with an optional note) or resolves several alerts: all of them or none. */
export function useBulkAlertAction() {
  return useWrite(
    (body: AlertBulkAction) => unwrap(api.POST("/api/v1/alerts/bulk", { body })),
    [keys.alerts.all],
    "settled",
  );
}

/** Who may be assigned the project's alerts. */
export function useAssignees() {
  return useQuery({
    queryKey: keys.alerts.assignees(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/alerts/assignees", { signal })),
    staleTime: 60_000,
  });
}

export function useAssign() {
  return useWrite(
    ({ alertId, assigneeId }: { alertId: number; assigneeId: number | null }) =>
      unwrap(
        api.PUT("/api/v1/alerts/{alert_id}/assignee", {
          params: { path: { alert_id: alertId } },
          body: { assignee_id: assigneeId },
        }),
      ),
    [keys.alerts.all],
    "settled",
  );
}

export function useRules() {
  return useQuery({
    queryKey: keys.alerts.rules(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/sla-rules", { signal })),
  });
}

/** Rules to start from (members: only a writer starts one). */
export function useRuleTemplates(enabled: boolean) {
  return useQuery({
    queryKey: keys.alerts.templates(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/sla-rules/templates", { signal })),
    staleTime: Infinity,
    enabled,
  });
}

export function useCreateRule() {
  return useWrite(
    (body: SlaRuleCreate) => unwrap(api.POST("/api/v1/sla-rules", { body })),
    [keys.alerts.rules()],
  );
}

export function useUpdateRule() {
  return useWrite(
    ({ ruleId, enabled }: { ruleId: number; enabled: boolean }) =>
      unwrap(
        api.PATCH("/api/v1/sla-rules/{rule_id}", {
          params: { path: { rule_id: ruleId } },
          body: { enabled },
        }),
      ),
    [keys.alerts.rules()],
    "settled",
  );
}

export function useDeleteRule() {
  return useWrite(
    (ruleId: number) =>
      unwrap(api.DELETE("/api/v1/sla-rules/{rule_id}", { params: { path: { rule_id: ruleId } } })),
    [keys.alerts.rules()],
    "settled",
  );
}

export function useChannels() {
  return useQuery({
    queryKey: keys.alerts.channels(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/channels", { signal })),
    // A channel's delivery health changes on its own: keep it current.
    refetchInterval: 15_000,
  });
}

export function useCreateChannel() {
  return useWrite(
    (body: ChannelCreate) => unwrap(api.POST("/api/v1/channels", { body })),
    [keys.alerts.channels()],
  );
}

export function useTestChannel() {
  return useMutation({
    mutationFn: (channelId: number) =>
      unwrap(
        api.POST("/api/v1/channels/{channel_id}/test", {
          params: { path: { channel_id: channelId } },
        }),
      ),
  });
}

export function useMuteChannel() {
  return useWrite(
    ({ channelId, muted }: { channelId: number; muted: boolean }) =>
      unwrap(
        api.PATCH("/api/v1/channels/{channel_id}", {
          params: { path: { channel_id: channelId } },
          body: { muted },
        }),
      ),
    [keys.alerts.channels()],
    "settled",
  );
}

export function useDeleteChannel() {
  return useWrite(
    (channelId: number) =>
      unwrap(
        api.DELETE("/api/v1/channels/{channel_id}", {
          params: { path: { channel_id: channelId } },
        }),
      ),
    [keys.alerts.channels()],
    "settled",
  );
}
