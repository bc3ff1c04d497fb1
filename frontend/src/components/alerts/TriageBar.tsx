import { useState } from "react";

import type { AlertBulkAction, AlertRead } from "../../api/types";
import { actionable } from "../../lib/alerts";

/**
 * The selected alerts and what a member may do to them at once: acknowledge the open ones
 * (with one note for all) or resolve every one not yet resolved; the lab changes all of them
 * or none. `onAct` answers whether it worked (the note is then cleared).
 */
export function TriageBar({
  selected,
  pending,
  onAct,
  onClear,
}: {
  selected: AlertRead[];
  pending: boolean;
  onAct: (body: AlertBulkAction) => Promise<boolean>;
  onClear: () => void;
}) {
  const [note, setNote] = useState("");
  const toAcknowledge = actionable(selected, "acknowledge");
  const toResolve = actionable(selected, "resolve");

  function act(body: AlertBulkAction) {
    void onAct(body).then((done) => {
      if (done) setNote("");
    });
  }

  return (
    <div className="toolbar triage-bar" role="group" aria-label="Selected alerts">
      <strong>{selected.length} selected</strong>
      <label>
        Note{" "}
        <input
          value={note}
          onChange={(event) => setNote(event.target.value)}
          maxLength={2000}
          size={40}
          placeholder="what you found (kept with the acknowledgement)"
        />
      </label>
      <button
        type="button"
        className="button button-small"
        disabled={pending || toAcknowledge.length === 0}
        onClick={() =>
          act({
            action: "acknowledge",
            alert_ids: toAcknowledge,
            ...(note.trim() ? { note: note.trim() } : {}),
          })
        }
      >
        Acknowledge selected ({toAcknowledge.length})
      </button>
      <button
        type="button"
        className="button button-small"
        disabled={pending || toResolve.length === 0}
        onClick={() => act({ action: "resolve", alert_ids: toResolve })}
      >
        Resolve selected ({toResolve.length})
      </button>
      <button type="button" className="link-button small" onClick={onClear}>
        Clear selection
      </button>
    </div>
  );
}
