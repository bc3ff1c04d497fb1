import { errorMessage } from "../../api/client";
import type { QueryState } from "../../api/hooks";
import type { DeliveryRead } from "../../api/types";
import { formatDateTime } from "../../lib/format";
import { Badge } from "../common/Badge";

/** An alert's deliveries to the channels, in a line of the alerts table (their states said
 * inline, as short as the line). */
export function Deliveries({ deliveries }: { deliveries: QueryState<DeliveryRead[]> }) {
  if (deliveries.isPending) return <span className="muted">Loading deliveries…</span>;
  if (deliveries.error) {
    return <span className="field-error">{errorMessage(deliveries.error)}</span>;
  }
  const sent = deliveries.data ?? [];
  if (sent.length === 0) return <span className="muted">No message sent (no channel).</span>;
  return (
    <ul className="inline-list">
      {sent.map((delivery) => (
        <li key={delivery.id}>
          {delivery.event} to channel #{delivery.channel_id}:{" "}
          <Badge
            tone={
              delivery.status === "sent" ? "good" : delivery.status === "failed" ? "bad" : "unknown"
            }
          >
            {delivery.status}
          </Badge>{" "}
          after {delivery.attempts} attempt{delivery.attempts === 1 ? "" : "s"}
          {delivery.sent_at && ` at ${formatDateTime(delivery.sent_at)}`}
          {delivery.last_error && <span className="muted"> — {delivery.last_error}</span>}
        </li>
      ))}
    </ul>
  );
}
