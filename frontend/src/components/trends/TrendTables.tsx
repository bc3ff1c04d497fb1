import { formatDateTime, shortCommit } from "../../lib/format";
import {
  formatShare,
  smallestChangeText,
  type MergedTrendRow,
  type TrendLine,
} from "../../lib/trends";
import { RunLink } from "../common/RunLink";
import { num, TableHead } from "../common/TableHead";

/** Each line's latest window, in words: the run judged, the window's runs, centre and bound. */
export function TrendWindows({
  lines,
  format,
}: {
  lines: TrendLine[];
  format: (value: number) => string;
}) {
  const windows = lines.flatMap((line) => (line.window ? [{ line, band: line.window }] : []));
  if (windows.length === 0) return null;
  return (
    <ul className="trend-windows" aria-label="Windows">
      {windows.map(({ line, band }) => {
        const evidence = band.evidence;
        const window = evidence.window;
        return (
          <li key={line.key} data-series={line.key}>
            <strong>{line.name}</strong>: run <RunLink id={band.runId} />{" "}
            {band.source === "gate" ? "was judged" : "would be judged"} against the window of its
            last {window.runs} runs on {window.branch} (
            <RunLink id={window.first_run_id} />
            {window.first_commit ? ` @ ${shortCommit(window.first_commit)}` : ""} to{" "}
            <RunLink id={window.last_run_id} />
            {window.last_commit ? ` @ ${shortCommit(window.last_commit)}` : ""}): centre{" "}
            {format(evidence.centre)}, bound {format(evidence.bound)}; its value{" "}
            {format(evidence.value)} ({evidence.outcome}).{" "}
            <span data-testid="smallest-change">
              The smallest change it lets the gate see:{" "}
              {smallestChangeText(evidence.smallest_change)}.
            </span>
            {band.source === "computed" && (
              <span className="muted small">
                {" "}
                Computed for this metric alone at a false-alarm level of{" "}
                {formatShare(evidence.level)}: the gate did not judge it against a window.
              </span>
            )}
          </li>
        );
      })}
    </ul>
  );
}

/** Every line's change points: the first run after each, the levels before and after. */
export function ChangePoints({
  lines,
  format,
}: {
  lines: TrendLine[];
  format: (value: number) => string;
}) {
  const changes = lines.flatMap((line) => line.changes.map((change) => ({ line, change })));
  return (
    <>
      <h2 id="change-points">Change points</h2>
      {changes.length === 0 ? (
        <p className="muted">No change point in this history.</p>
      ) : (
        <div className="table-scroll">
          <table className="table" aria-labelledby="change-points">
            <TableHead
              columns={["Series", "First run after", num("Before"), num("After"), num("Change")]}
            />
            <tbody>
              {changes.map(({ line, change }) => (
                <tr key={`${line.key}-${String(change.x)}`}>
                  <th scope="row">{line.name}</th>
                  <td>
                    {change.runId === null ? (
                      formatDateTime(new Date(change.t).toISOString()).slice(0, 10)
                    ) : (
                      <RunLink id={change.runId} />
                    )}
                  </td>
                  <td className="num">{format(change.before)}</td>
                  <td className="num">{format(change.after)}</td>
                  <td className="num">{change.label}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/** Every point of the history, newest first: its run (or day), commit, start and values. */
export function EveryPoint({
  rows,
  lines,
  daily,
  format,
}: {
  rows: MergedTrendRow[];
  lines: TrendLine[];
  daily: boolean;
  format: (value: number) => string;
}) {
  return (
    <details className="points">
      <summary>
        Every point ({rows.length} {daily ? "days" : "runs"})
      </summary>
      <div className="table-scroll">
        <table className="table">
          <TableHead
            columns={["Run", "Commit", "Started", ...lines.map((line) => num(line.name, line.key))]}
          />
          <tbody>
            {[...rows].reverse().map((row) => (
              <tr key={row.index}>
                <td>{row.runId === null ? "day" : <RunLink id={row.runId} />}</td>
                <td className="mono">{shortCommit(row.commit)}</td>
                <td className="nowrap">{formatDateTime(new Date(row.t).toISOString())}</td>
                {lines.map((line) => (
                  <td key={line.key} className="num">
                    {row.values[line.key] === undefined ? "" : format(row.values[line.key]!)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
