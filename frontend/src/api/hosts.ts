import { useMutation, useQuery } from "@tanstack/react-query";

import { api, unwrap } from "./client";
import { useWrite } from "./hooks";
import { keys } from "./keys";
import type { InvitationCreate } from "./types";

/** Hosts change state on their own (heartbeats, jobs): the list refreshes every few seconds. */
export function useHosts(refetchInterval: number | false = 5_000, enabled = true) {
  return useQuery({
    queryKey: keys.hosts.list(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/hosts", { signal })),
    refetchInterval,
    enabled,
  });
}

/** The suite catalogue: what online hosts advertise. */
export function useSuites(enabled = true) {
  return useQuery({
    queryKey: keys.hosts.suites(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/suites", { signal })),
    staleTime: 30_000,
    enabled,
  });
}

/** An admin invites a machine to join as a host: its one-time code and join command. */
export function useInviteHost() {
  return useMutation({
    mutationFn: (body: InvitationCreate) =>
      unwrap(api.POST("/api/v1/hosts/invitations", { body })),
  });
}

/** An admin revokes a host: its key is forgotten and its job retried elsewhere. */
export function useRevokeHost() {
  return useWrite(
    (hostId: number) =>
      unwrap(api.POST("/api/v1/hosts/{host_id}/revoke", { params: { path: { host_id: hostId } } })),
    [keys.hosts.all],
  );
}
