import { formatDeltaPct } from "../../lib/units";

/**
 * A headline P99's change against the centre of its history's window, as the CI gate judged
 * it: red when slower. Nothing when the gate did not judge it against a window.
 */
export function WindowDelta({ pct }: { pct: number | null }) {
  if (pct === null) return null;
  return (
    <span
      className={`small window-delta${pct > 0 ? " window-delta-bad" : ""}`}
      title="P99 against the centre of its history's window, as the CI gate judged it"
    >
      {formatDeltaPct(pct)} vs window
    </span>
  );
}
