import { useState, type FormEvent } from "react";
import { useNavigate } from "react-router";

import { compareHref } from "../../lib/compare";
import { LabelledSelect } from "../common/Select";

/**
 * Compare two series of this run along one of its axes (go vs zig, baseline vs tuned): the
 * other labels pair the series up, so a sweep is compared point by point.
 */
export function CompareSeriesForm({
  runId,
  axes,
}: {
  runId: number;
  axes: Record<string, string[]>;
}) {
  const navigate = useNavigate();
  const names = Object.keys(axes);
  const [axis, setAxis] = useState(names[0] ?? "");
  const values = axes[axis] ?? [];
  const [baseline, setBaseline] = useState(values[0] ?? "");
  const [candidate, setCandidate] = useState(values[1] ?? "");
  if (names.length === 0) return null;

  function pickAxis(name: string) {
    setAxis(name);
    setBaseline(axes[name]?.[0] ?? "");
    setCandidate(axes[name]?.[1] ?? "");
  }
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void navigate(compareHref(runId, runId, { [axis]: baseline }, { [axis]: candidate }));
  }
  return (
    <form className="toolbar" onSubmit={submit} aria-label="Compare two series of this run">
      <LabelledSelect label="Along" value={axis} options={names} onChange={pickAxis} />
      <LabelledSelect label="baseline" value={baseline} options={values} onChange={setBaseline} />
      <LabelledSelect
        label="candidate"
        value={candidate}
        options={values}
        onChange={setCandidate}
      />
      <button type="submit" className="button" disabled={baseline === candidate}>
        Compare series
      </button>
    </form>
  );
}
