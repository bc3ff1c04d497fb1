import type { QueryState } from "../../api/hooks";
import type { AuditEvent, AuditPage } from "../../api/types";
import { describeChange } from "../../lib/audit";
import { formatDateTime } from "../../lib/format";
import { EmptyState } from "../common/Status";
import { Pagination } from "../runs/Pagination";
import { SettingsTable } from "./SettingsTable";

/** The audit log's page: its events read a page at a time. */
export const AUDIT_PAGE = 20;

/** The audit log (admin only): who changed which user, project membership, token, rule,
 * channel, baseline, schedule or project setting, and how; newest first, the page of `events`
 * at `offset`. */
export function AuditLog({
  events,
  offset,
  onOffsetChange,
}: {
  events: QueryState<AuditPage>;
  offset: number;
  onOffsetChange: (offset: number) => void;
}) {
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
      {page !== undefined && page.total > AUDIT_PAGE && (
        <Pagination
          total={page.total}
          limit={AUDIT_PAGE}
          offset={offset}
          onOffsetChange={onOffsetChange}
          label="Audit log pages"
        />
      )}
    </>
  );
}
