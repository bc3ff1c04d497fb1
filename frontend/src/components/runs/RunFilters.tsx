import type { FormEvent } from "react";

import type { RunListQuery } from "../../api/types";
import {
  RANGES,
  SOURCES,
  TEXT_FILTERS,
  VERDICTS,
  inputToIso,
  isoToInput,
  type TextFilter,
} from "../../lib/runFilters";
import { Options } from "../common/Select";

const LABELS: Record<TextFilter, string> = {
  suite: "Suite",
  scenario: "Scenario",
  branch: "Branch",
  commit: "Commit",
  host: "Host",
};

export interface FilterValues {
  [name: string]: string;
}

/**
 * The runs filters as one form: typed filters apply on Enter or "Apply"; a ready-made time
 * range applies at once. Values come from the URL (the form is re-mounted when it changes).
 */
export function RunFilters({
  query,
  suites,
  onApply,
  onRange,
  onClear,
}: {
  query: RunListQuery;
  suites: string[];
  onApply: (values: FilterValues) => void;
  onRange: (hours: number) => void;
  onClear: () => void;
}) {
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const values: FilterValues = {};
    for (const name of [...TEXT_FILTERS, "source", "verdict"])
      values[name] = String(data.get(name) ?? "");
    if (query.order) values.order = query.order;
    values.since = inputToIso(String(data.get("since") ?? ""));
    values.until = inputToIso(String(data.get("until") ?? ""));
    onApply(values);
  }

  return (
    <form className="filters" onSubmit={submit} aria-label="Filter runs">
      {TEXT_FILTERS.map((name) => (
        <label key={name} className="filter">
          <span>{LABELS[name]}</span>
          <input
            name={name}
            defaultValue={(name === "suite" ? query.suite_prefix : query[name]) ?? ""}
            list={name === "suite" ? "suite-options" : undefined}
            size={10}
          />
        </label>
      ))}
      <datalist id="suite-options">
        {suites.map((suite) => (
          <option key={suite} value={suite} />
        ))}
      </datalist>
      <label className="filter">
        <span>Source</span>
        <select name="source" defaultValue={query.source ?? ""}>
          <Options options={SOURCES} blank="any" />
        </select>
      </label>
      <label className="filter">
        <span>Verdict</span>
        <select name="verdict" defaultValue={query.verdict ?? ""}>
          <Options
            options={VERDICTS.map((verdict) => ({
              value: verdict,
              text: verdict === "none" ? "not judged" : verdict,
            }))}
            blank="any"
          />
        </select>
      </label>
      <label className="filter">
        <span>Since (UTC)</span>
        <input type="datetime-local" name="since" defaultValue={isoToInput(query.since ?? null)} />
      </label>
      <label className="filter">
        <span>Until (UTC)</span>
        <input type="datetime-local" name="until" defaultValue={isoToInput(query.until ?? null)} />
      </label>
      <div className="filter-actions">
        <button type="submit" className="button button-primary">
          Apply
        </button>
        <button type="button" className="button" onClick={onClear}>
          Clear
        </button>
      </div>
      <div className="filter-ranges" role="group" aria-label="Time range">
        {RANGES.map((range) => (
          <button
            key={range.id}
            type="button"
            className="button button-small"
            onClick={() => onRange(range.hours)}
          >
            {range.label}
          </button>
        ))}
      </div>
    </form>
  );
}
