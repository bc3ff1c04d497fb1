import type { CompareGroup } from "../../lib/compare";
import { minTailSamples } from "../../lib/vocabulary";
import { Tooltip } from "../common/Tooltip";
import { VerdictBadge } from "../common/VerdictBadge";

/**
 * Baseline vs candidate in the seed reports' shape: metric, baseline, candidate, delta,
 * delta %, verdict (its evidence on hover and focus). The delta is coloured by whether the
 * metric moved the good way for its direction; the verdict says whether that is significant.
 */
export function CompareTable({ groups }: { groups: CompareGroup[] }) {
  const under = String(minTailSamples());
  const fewSamples = `Too few samples beyond this percentile (under ${under}) to trust the value.`;
  return (
    <table className="table compare-table">
      <thead>
        <tr>
          <th scope="col">Metric</th>
          <th scope="col" className="num">
            Baseline
          </th>
          <th scope="col" className="num">
            Candidate
          </th>
          <th scope="col" className="num">
            Delta
          </th>
          <th scope="col" className="num">
            Delta %
          </th>
          <th scope="col">Verdict</th>
        </tr>
      </thead>
      {groups.map((group) => (
        <tbody key={group.key} data-series={group.name}>
          {groups.length > 1 || group.name !== "(all)" ? (
            <tr className="group-row">
              <th scope="colgroup" colSpan={6}>
                {group.name}
              </th>
            </tr>
          ) : null}
          {group.rows.map((row) => (
            <tr
              key={row.metric}
              data-metric={row.metric}
              className={row.reliable ? undefined : "unreliable-row"}
            >
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
              <td className="num">{row.baseline}</td>
              <td className="num">{row.candidate}</td>
              <td className={`num change-${row.change}`}>{row.delta}</td>
              <td className={`num change-${row.change}`}>{row.deltaPct}</td>
              <td>
                <VerdictBadge verdict={row.verdict} evidence={row.evidence} />
              </td>
            </tr>
          ))}
        </tbody>
      ))}
    </table>
  );
}
