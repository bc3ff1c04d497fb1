import { useState, type FormEvent } from "react";

import { errorMessage } from "../../api/client";
import { useUpdateRetention } from "../../api/runs";
import type { RetentionRead } from "../../api/types";

/** What retention retires, a field each. */
const KEPT = [
  { name: "intervals_retention_days", what: "Intervals" },
  { name: "histograms_retention_days", what: "Histograms" },
] as const;

/**
 * How long this project keeps each trial's intervals and histogram. Run and trial summaries
 * and the daily rollups stay forever; admins change it, beat applies it. The form starts from
 * `current` (keyed by it, it starts again when the saved retention changes).
 */
export function Retention({ current, isAdmin }: { current: RetentionRead; isAdmin: boolean }) {
  const update = useUpdateRetention();
  const [days, setDays] = useState(() => ({
    intervals_retention_days: daysText(current.intervals_retention_days),
    histograms_retention_days: daysText(current.histograms_retention_days),
  }));
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    update.mutate({
      intervals_retention_days: parse(days.intervals_retention_days),
      histograms_retention_days: parse(days.histograms_retention_days),
    });
  }
  return (
    <form className="form-grid" onSubmit={submit} aria-label="Retention">
      {KEPT.map(({ name, what }) => (
        <label key={name}>
          {what} kept (days; empty: forever)
          <input
            type="number"
            min={1}
            max={36500}
            value={days[name]}
            disabled={!isAdmin}
            onChange={(event) => setDays((current) => ({ ...current, [name]: event.target.value }))}
          />
        </label>
      ))}
      <p className="muted small">
        Project {current.project}. Summaries of every run and trial and the daily rollups are
        kept forever; trends over long ranges read the rollups.
      </p>
      {isAdmin && (
        <button type="submit" className="button button-primary" disabled={update.isPending}>
          Save retention
        </button>
      )}
      {update.isError && (
        <span className="field-error" role="alert">
          {errorMessage(update.error)}
        </span>
      )}
    </form>
  );
}

function daysText(value: number | null): string {
  return value === null ? "" : String(value);
}

function parse(text: string): number | null {
  return text.trim() === "" ? null : Number(text);
}
