import { useQuery } from "@tanstack/react-query";

import { api, unwrap } from "./client";
import { keys } from "./keys";

/** Hosts change state on their own (heartbeats, jobs): the list refreshes every few seconds. */
export function useHosts(refetchInterval: number | false = 5_000) {
  return useQuery({
    queryKey: keys.hosts.list(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/hosts", { signal })),
    refetchInterval,
  });
}

/** The suite catalogue: what online hosts advertise. */
export function useSuites() {
  return useQuery({
    queryKey: keys.hosts.suites(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/suites", { signal })),
    staleTime: 30_000,
  });
}
