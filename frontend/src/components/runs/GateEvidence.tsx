import type { GateEvidence as Evidence, MetricInfo } from "../../api/types";
import { formatLabels, shortCommit } from "../../lib/format";
import { WANTED_CHANGE, blindSpot, failsAbove, smallestChangeAt } from "../../lib/gate";
import { formatShare } from "../../lib/trends";
import { formatValue } from "../../lib/units";
import { metricLabel } from "../../lib/vocabulary";
import { Badge } from "../common/Badge";
import { RunLink } from "../common/RunLink";
import { num, TableHead } from "../common/TableHead";

const COLUMNS = ["Series", "Metric", "Window", num("Value"), num("Centre"), num("Bound"),
  num("p vs level"), "Smallest change it sees", "Outcome"];
const OUTCOME_TONE = { regressed: "bad", improved: "good", unchanged: "neutral" } as const;

/**
 * What the CI gate judged a run against, per gated metric of each series: the window of its
 * history (runs, branch, first and last run), the run's value against the window's centre and
 * the bound it must not cross, p against its level, and the smallest change the window lets
 * the gate see; flagged when that is more than 10 % with the run's own trials.
 */
export function GateEvidence({
  evidence,
  metricInfo,
}: {
  evidence: Evidence[];
  metricInfo: Record<string, MetricInfo>;
}) {
  const blind = evidence.filter((item) => blindSpot(item) !== null);
  return (
    <>
      {blind.length > 0 && (
        <p className="warning" role="note" data-testid="gate-blind-spot">
          {blind.length === 1 ? "A gated metric" : `${String(blind.length)} gated metrics`}{" "}
          cannot show a {formatShare(WANTED_CHANGE)} change with this run&apos;s trials: its
          window&apos;s runs spread too widely. More trials per run (or a quieter host) would.
        </p>
      )}
      <div className="table-scroll">
        <table className="table evidence-table" aria-label="Gate evidence">
          <TableHead columns={COLUMNS} />
          <tbody>
            {evidence.map((item, index) => (
              <EvidenceRow
                key={index}
                item={item}
                unit={metricInfo[item.metric]?.unit ?? ""}
                label={metricLabel(item.metric, metricInfo[item.metric])}
              />
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function EvidenceRow({ item, unit, label }: { item: Evidence; unit: string; label: string }) {
  const format = (value: number) => formatValue(value, unit);
  const window = item.window;
  const own = smallestChangeAt(item, item.trials);
  const blind = blindSpot(item);
  const given = Object.entries(item.smallest_change).sort(([a], [b]) => Number(a) - Number(b));
  return (
    <tr data-metric={item.metric} data-blind={blind !== null ? "true" : undefined}>
      <td>{formatLabels(item.series)}</td>
      <td>{label}</td>
      <td className="wrap">
        {window.runs} runs on <strong>{window.branch}</strong>, from{" "}
        <RunLink id={window.first_run_id} text="run #" />
        {window.first_commit && (
          <span className="mono"> @ {shortCommit(window.first_commit)}</span>
        )}{" "}
        to <RunLink id={window.last_run_id} text="run #" />
        {window.last_commit && (
          <span className="mono"> @ {shortCommit(window.last_commit)}</span>
        )}
        {window.outliers > 0 && (
          <span className="muted small">; {window.outliers} far-off runs left out</span>
        )}
        <div className="muted small">run-to-run spread {formatShare(window.spread)}</div>
      </td>
      <td className="num">
        {format(item.value)}
        <div className="muted small">
          {item.trials} trial{item.trials === 1 ? "" : "s"}
        </div>
      </td>
      <td className="num">{format(item.centre)}</td>
      <td className="num">
        {format(item.bound)}
        <div className="muted small">fails {failsAbove(item) ? "above" : "below"}</div>
      </td>
      <td className="num">
        {item.p_value.toPrecision(2)} {item.p_value <= item.level ? "≤" : ">"}{" "}
        {item.level.toPrecision(2)}
      </td>
      <td>
        {given.map(([trials, value]) => (
          <div key={trials} className="nowrap">
            {formatShare(value)} with {trials} trial{trials === "1" ? "" : "s"}
          </div>
        ))}
        {own !== null && own.estimated && (
          <div className="nowrap muted small">
            about {formatShare(own.value)} with this run&apos;s {own.trials}
          </div>
        )}
        {blind !== null && (
          <div className="text-bad small">
            cannot show a {formatShare(WANTED_CHANGE)} change with {blind.trials} trial
            {blind.trials === 1 ? "" : "s"}
          </div>
        )}
      </td>
      <td>
        <Badge tone={OUTCOME_TONE[item.outcome]}>{item.outcome}</Badge>
      </td>
    </tr>
  );
}
