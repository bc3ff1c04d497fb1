import { useState } from "react";

import { formatLabels, labelsMatch } from "../../lib/format";
import type { SeriesChoice } from "../../lib/trends";
import { LabelSearch } from "../common/LabelSearch";

// Boxes offered at once besides the ticked ones: a search narrows the rest.
const OFFERED = 20;

/**
 * The series a trend draws: ticked ones always listed, the others by a label search, the
 * ones the newest run failed on first and marked.
 */
export function SeriesPicker({
  series,
  selected,
  onToggle,
}: {
  series: SeriesChoice[];
  selected: ReadonlySet<string>;
  onToggle: (key: string) => void;
}) {
  const [search, setSearch] = useState("");
  const matching = series.filter(
    (item) => !selected.has(item.key) && labelsMatch(item.labels, search),
  );
  const offered = [
    ...series.filter((item) => selected.has(item.key)),
    ...matching.slice(0, OFFERED),
  ];
  return (
    <fieldset className="checks" aria-label="Series">
      <legend>Series</legend>
      {series.length > OFFERED && (
        <LabelSearch label="Find" value={search} onChange={setSearch} />
      )}
      {offered.map((item) => (
        <label key={item.key}>
          <input
            type="checkbox"
            checked={selected.has(item.key)}
            onChange={() => onToggle(item.key)}
          />{" "}
          {formatLabels(item.labels)}{" "}
          {item.failing && (
            <span className="badge badge-bad" title="The newest run failed on this series">
              failing
            </span>
          )}
        </label>
      ))}
      {matching.length > OFFERED && (
        <span className="muted small">
          {matching.length - OFFERED} more of {series.length} series: search to find them
        </span>
      )}
    </fieldset>
  );
}
