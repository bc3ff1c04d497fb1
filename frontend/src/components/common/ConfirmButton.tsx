import { useState } from "react";

/**
 * A destructive action in two steps, inline (no browser dialog): the first press asks, the
 * second does it; Cancel or Escape goes back.
 */
export function ConfirmButton({
  label,
  confirmLabel = "Yes, " + label.toLowerCase(),
  onConfirm,
  disabled,
  accessibleName,
}: {
  label: string;
  confirmLabel?: string;
  onConfirm: () => void;
  disabled?: boolean;
  accessibleName?: string;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button
        type="button"
        className="button button-small"
        disabled={disabled}
        aria-label={accessibleName}
        onClick={() => setAsking(true)}
      >
        {label}
      </button>
    );
  }
  return (
    <span className="confirm" onKeyDown={(event) => event.key === "Escape" && setAsking(false)}>
      <button
        type="button"
        className="button button-small button-danger"
        autoFocus
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" className="button button-small" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
