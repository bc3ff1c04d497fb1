import type { SeriesFilter } from "../../lib/compare";
import { LabelSearch } from "../common/LabelSearch";

const TOGGLES = [
  ["changedOnly", "Changed only"],
  ["failingOnly", "Regressed only"],
] as const;

/** A comparison's series filters: a label search, changed only, regressed only. */
export function SeriesFilterBar({
  filter,
  onChange,
  shown,
  total,
}: {
  filter: SeriesFilter;
  onChange: (filter: SeriesFilter) => void;
  shown: number;
  total: number;
}) {
  return (
    <div className="toolbar" role="search" aria-label="Series compared">
      <LabelSearch
        label="Series"
        value={filter.search}
        onChange={(search) => onChange({ ...filter, search })}
      />
      {TOGGLES.map(([key, text]) => (
        <label key={key}>
          <input
            type="checkbox"
            checked={filter[key]}
            onChange={(event) => onChange({ ...filter, [key]: event.target.checked })}
          />{" "}
          {text}
        </label>
      ))}
      <span className="muted small" aria-live="polite">
        {shown} of {total} series
      </span>
    </div>
  );
}
