import type { ExperimentRunRead } from "../../api/types";
import { formatJudged, formatPoint, OUTCOME, pairJudgements } from "../../lib/experiments";
import { Badge } from "../common/Badge";
import { TableHead } from "../common/TableHead";

/** Two runs of one experiment side by side: each expectation as each run judged it, those
 * judged differently marked. */
export function RunsSideBySide({
  first,
  second,
}: {
  first: ExperimentRunRead;
  second: ExperimentRunRead;
}) {
  const pairs = pairJudgements(first, second);
  const changed = pairs.filter((pair) => pair.changed).length;
  return (
    <div className="panel" data-side-by-side={`${String(first.id)}-${String(second.id)}`}>
      <h2>
        Run #{first.id} beside run #{second.id}
      </h2>
      <p className="muted">
        {changed === 0
          ? "Every expectation is judged the same by both runs."
          : `${String(changed)} of ${String(pairs.length)} judged differently.`}
      </p>
      <div className="table-scroll">
        <table className="table side-by-side-table">
          <TableHead
            columns={["Expectation", "At", `Run #${String(first.id)}`, `Run #${String(second.id)}`]}
          />
          <tbody>
            {pairs.map((pair) => (
              <tr key={pair.key} data-changed={pair.changed ? "yes" : "no"}>
                <th scope="row" className="mono">
                  {pair.expectation}
                </th>
                <td className="nowrap">{formatPoint(pair.point)}</td>
                {[pair.first, pair.second].map((judged, index) => (
                  <td key={index} className="nowrap">
                    {judged ? (
                      <>
                        <Badge tone={OUTCOME[judged.outcome].tone}>
                          {OUTCOME[judged.outcome].text}
                        </Badge>{" "}
                        <span className="num">{formatJudged(judged.value, judged.unit)}</span>
                      </>
                    ) : (
                      <span className="muted">not judged</span>
                    )}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
