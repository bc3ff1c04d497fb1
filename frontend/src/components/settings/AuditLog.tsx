import { useState } from "react";

import { useAuditEvents } from "../../api/audit";
import type { AuditEvent } from "../../api/types";
import { describeChange } from "../../lib/audit";
import { formatDateTime } from "../../lib/format";
import { Pagination } from "../runs/Pagination";
import { EmptyState } from "../common/Status";
import { SettingsTable } from "./SettingsTable";

const PAGE = 20;

/** The audit log (admin only): who changed which user, project membership, token, rule,
 * channel, baseline, schedule or project setting, and how; newest first, a page at a time. */
export function AuditLog() {
  const [offset, setOffset] = useState(0);
  const events = useAuditEvents({ limit: PAGE, offset });
  const page = events.data;
  return (
    <>
      <SettingsTable<AuditEvent>
        className="audit-table"
        columns={["When", "Who", "What", "Change"]}
        rows={{ ...events, data: page?.items }}
        loading="Loading the audit log…"
        empty={<EmptyState title="No changes recorded" />}
        error={null}
      >
        {(event) => (
          <tr key={event.id} data-audit-id={event.id}>
            <td>{formatDateTime(event.at)}</td>
            <td>{event.actor}</td>
            <th scope="row">
              {event.entity_type.replace("_", " ")} {event.entity_id} {event.action}
            </th>
            <td className="small">{describeChange(event)}</td>
          </tr>
        )}
      </SettingsTable>
      {page !== undefined && page.total > PAGE && (
        <Pagination
          total={page.total}
          limit={PAGE}
          offset={offset}
          onOffsetChange={setOffset}
          label="Audit log pages"
        />
      )}
    </>
  );
}
