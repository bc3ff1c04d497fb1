import { keepPreviousData, useQuery } from "@tanstack/react-query";

import { api, unwrap } from "./client";
import { keys } from "./keys";
import type { AuditQuery } from "./types";

/** The audit log (admins): who changed what, newest first, a page at a time. */
export function useAuditEvents(query: AuditQuery, enabled: boolean) {
  return useQuery({
    queryKey: keys.audit.list(query),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/audit", { params: { query }, signal })),
    placeholderData: keepPreviousData,
    enabled,
  });
}
