import { formatProgress } from "../../lib/jobs";

/** A job's progress in percent, with its phase as the accessible text. */
export function ProgressBar({ value, label }: { value: number; label: string }) {
  const clamped = Math.min(100, Math.max(0, Number.isFinite(value) ? value : 0));
  return (
    <div
      className="progress"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.floor(clamped)}
      aria-valuetext={`${formatProgress(clamped)} ${label}`}
    >
      <div className="progress-fill" style={{ width: `${String(clamped)}%` }} />
      <span className="progress-text">{formatProgress(clamped)}</span>
    </div>
  );
}
