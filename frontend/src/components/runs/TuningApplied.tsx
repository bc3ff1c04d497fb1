import type { TuningEntry } from "../../lib/tuning";
import { Badge } from "../common/Badge";
import { num, TableHead } from "../common/TableHead";

const TONES = { applied: "good", refused: "bad", off: "neutral" } as const;

/** The tuning the load programs applied, or the host refused, and in how many trials. */
export function TuningApplied({
  entries,
  trialCount,
}: {
  entries: TuningEntry[];
  trialCount: number;
}) {
  if (entries.length === 0) {
    return <p className="muted">The load programs reported no tuning.</p>;
  }
  return (
    <table className="table tuning-applied">
      <TableHead columns={["Setting", "Outcome", num("Trials")]} />
      <tbody>
        {entries.map((entry) => (
          <tr key={`${entry.setting}-${entry.value}`}>
            <th scope="row" className="mono">
              {entry.setting}
            </th>
            <td className="wrap">
              {entry.state === "other" ? null : (
                <Badge tone={TONES[entry.state]}>
                  {entry.state === "off" ? "not requested" : entry.state}
                </Badge>
              )}{" "}
              <span className="mono">{entry.detail}</span>
            </td>
            <td className="num">
              {entry.trials} of {trialCount}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
