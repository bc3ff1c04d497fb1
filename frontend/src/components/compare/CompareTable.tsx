import { useState } from "react";

import { splitUnchanged, type CompareGroup, type CompareRow } from "../../lib/compare";
import { minTailSamples } from "../../lib/vocabulary";
import { num, TableHead } from "../common/TableHead";
import { Tooltip } from "../common/Tooltip";
import { VerdictBadge } from "../common/VerdictBadge";

/**
 * Baseline vs candidate in the seed reports' shape: metric, baseline, candidate, delta,
 * delta %, verdict (its evidence on hover and focus). The delta is coloured by whether the
 * metric moved the good way for its direction; the verdict says whether that is significant.
 * Each value says what it is (the median of its trials); the sides carry their names (go and
 * zig when one run's series are compared); unchanged metrics fold under one line per series.
 */
export function CompareTable({
  groups,
  sides = { baseline: "baseline", candidate: "candidate" },
}: {
  groups: CompareGroup[];
  sides?: { baseline: string; candidate: string };
}) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (key: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  return (
    <table className="table compare-table">
      <TableHead
        columns={[
          "Metric",
          { label: sides.baseline, className: "num side-name", key: "baseline" },
          { label: sides.candidate, className: "num side-name", key: "candidate" },
          num("Delta"),
          num("Delta %"),
          "Verdict",
        ]}
      />
      {groups.map((group) => {
        const { shown, unchanged } = splitUnchanged(group.rows);
        const expanded = open.has(group.key);
        return (
          <tbody key={group.key} data-series={group.name}>
            {groups.length > 1 || group.name !== "(all)" ? (
              <tr className="group-row">
                <th scope="colgroup" colSpan={6}>
                  {group.name}
                </th>
              </tr>
            ) : null}
            {shown.map((row) => (
              <Row key={row.metric} row={row} />
            ))}
            {unchanged.length > 0 && (
              <tr className="unchanged-row">
                <td colSpan={6}>
                  <button
                    type="button"
                    className="link-button"
                    aria-expanded={expanded}
                    onClick={() => toggle(group.key)}
                  >
                    {expanded ? "Hide" : "Show"} {unchanged.length} unchanged metric
                    {unchanged.length === 1 ? "" : "s"}
                  </button>
                </td>
              </tr>
            )}
            {expanded && unchanged.map((row) => <Row key={row.metric} row={row} />)}
          </tbody>
        );
      })}
    </table>
  );
}

function Row({ row }: { row: CompareRow }) {
  const under = String(minTailSamples());
  const fewSamples = `Too few samples beyond this percentile (under ${under}) to trust the value.`;
  return (
    <tr data-metric={row.metric} className={row.reliable ? undefined : "unreliable-row"}>
      <th scope="row">
        {row.label}
        {!row.reliable && (
          <>
            {" "}
            <Tooltip tip={fewSamples}>
              <span className="flag">⚠ few samples</span>
            </Tooltip>
          </>
        )}
      </th>
      <td className="num">
        {row.baseline}
        <div className="muted small">{row.baselineOf}</div>
      </td>
      <td className="num">
        {row.candidate}
        <div className="muted small">{row.candidateOf}</div>
      </td>
      <td className={`num change-${row.change}`}>{row.delta}</td>
      <td className={`num change-${row.change}`}>{row.deltaPct}</td>
      <td>
        <VerdictBadge verdict={row.verdict} evidence={row.evidence} />
      </td>
    </tr>
  );
}
