import { useState, type FormEvent } from "react";

import { useRetention, useUpdateRetention } from "../../api/runs";
import { errorMessage } from "../../api/client";
import type { RetentionRead } from "../../api/types";
import { ErrorState, Loading } from "../common/Status";

/**
 * How long this project keeps each trial's intervals and histogram. Run and trial summaries
 * and the daily rollups stay forever; admins change it, beat applies it.
 */
export function Retention({ isAdmin }: { isAdmin: boolean }) {
  const retention = useRetention();
  if (retention.isPending) return <Loading label="Loading retention…" />;
  if (retention.isError) {
    return (
      <ErrorState message={errorMessage(retention.error)} onRetry={() => void retention.refetch()} />
    );
  }
  return <RetentionForm key={JSON.stringify(retention.data)} current={retention.data} isAdmin={isAdmin} />;
}

function RetentionForm({ current, isAdmin }: { current: RetentionRead; isAdmin: boolean }) {
  const update = useUpdateRetention();
  const [intervals, setIntervals] = useState(days(current.intervals_retention_days));
  const [histograms, setHistograms] = useState(days(current.histograms_retention_days));
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    update.mutate({
      intervals_retention_days: parse(intervals),
      histograms_retention_days: parse(histograms),
    });
  }
  return (
    <form className="form-grid" onSubmit={submit} aria-label="Retention">
      <label>
        Intervals kept (days; empty: forever)
        <input
          type="number"
          min={1}
          max={36500}
          value={intervals}
          disabled={!isAdmin}
          onChange={(event) => setIntervals(event.target.value)}
        />
      </label>
      <label>
        Histograms kept (days; empty: forever)
        <input
          type="number"
          min={1}
          max={36500}
          value={histograms}
          disabled={!isAdmin}
          onChange={(event) => setHistograms(event.target.value)}
        />
      </label>
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

function days(value: number | null): string {
  return value === null ? "" : String(value);
}

function parse(text: string): number | null {
  return text.trim() === "" ? null : Number(text);
}
