import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

import { api, unwrap } from "./client";
import { keys } from "./keys";
import type { AlertBulkAction, AlertListQuery, ChannelCreate, SlaRuleCreate } from "./types";

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
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({
      alertId,
      action,
      note,
    }: {
      alertId: number;
      action: "acknowledge" | "resolve";
      note?: string;
    }) => {
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
    onSettled: () => void queryClient.invalidateQueries({ queryKey: keys.alerts.all }),
  });
}

/** Acknowledges (with an optional note) or resolves several alerts: all of them or none. */
export function useBulkAlertAction() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: AlertBulkAction) => unwrap(api.POST("/api/v1/alerts/bulk", { body })),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: keys.alerts.all }),
  });
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
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ alertId, assigneeId }: { alertId: number; assigneeId: number | null }) =>
      unwrap(
        api.PUT("/api/v1/alerts/{alert_id}/assignee", {
          params: { path: { alert_id: alertId } },
          body: { assignee_id: assigneeId },
        }),
      ),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: keys.alerts.all }),
  });
}

export function useRules() {
  return useQuery({
    queryKey: keys.alerts.rules(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/sla-rules", { signal })),
  });
}

export function useRuleTemplates() {
  return useQuery({
    queryKey: keys.alerts.templates(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/sla-rules/templates", { signal })),
    staleTime: Infinity,
  });
}

export function useCreateRule() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SlaRuleCreate) => unwrap(api.POST("/api/v1/sla-rules", { body })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: keys.alerts.rules() }),
  });
}

export function useUpdateRule() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ ruleId, enabled }: { ruleId: number; enabled: boolean }) =>
      unwrap(
        api.PATCH("/api/v1/sla-rules/{rule_id}", {
          params: { path: { rule_id: ruleId } },
          body: { enabled },
        }),
      ),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: keys.alerts.rules() }),
  });
}

export function useDeleteRule() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (ruleId: number) =>
      unwrap(api.DELETE("/api/v1/sla-rules/{rule_id}", { params: { path: { rule_id: ruleId } } })),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: keys.alerts.rules() }),
  });
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
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ChannelCreate) => unwrap(api.POST("/api/v1/channels", { body })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: keys.alerts.channels() }),
  });
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
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ channelId, muted }: { channelId: number; muted: boolean }) =>
      unwrap(
        api.PATCH("/api/v1/channels/{channel_id}", {
          params: { path: { channel_id: channelId } },
          body: { muted },
        }),
      ),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: keys.alerts.channels() }),
  });
}

export function useDeleteChannel() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (channelId: number) =>
      unwrap(
        api.DELETE("/api/v1/channels/{channel_id}", {
          params: { path: { channel_id: channelId } },
        }),
      ),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: keys.alerts.channels() }),
  });
}
