import type { MetricInfo, SeriesRead } from "../../api/types";
import { formatLabels } from "../../lib/format";
import { formatLatency, originNote } from "../../lib/origin";
import { formatCount, formatValue } from "../../lib/units";
import { latencyValue, metricHeaders, trialKeys } from "../../lib/vocabulary";
import { num, TableHead } from "../common/TableHead";

/**
 * Every trial of every series: its own summary and metrics (statistics across runs use these
 * trial-level values). A trial its host disturbed is marked, and listed below with the reason
 * it is left out of every verdict.
 */
export function TrialsTable({
  series,
  metricInfo,
}: {
  series: SeriesRead[];
  metricInfo: Record<string, MetricInfo>;
}) {
  const metricNames = [
    ...new Set(
      series.flatMap((item) => item.trials.flatMap((trial) => Object.keys(trial.metrics))),
    ),
  ];
  const columns = trialKeys();
  const headers = metricHeaders(["count", ...columns, ...metricNames], metricInfo);
  const disturbed = series.flatMap((item) =>
    item.trials
      .filter((trial) => trial.disturbed)
      .map((trial) => ({ item, trial, reason: trial.disturbed ?? "" })),
  );
  return (
    <>
      <table className="table trials-table">
        <TableHead
          columns={[
            "Series",
            num("Trial"),
            ...["count", ...columns, ...metricNames].map((name) => num(headers[name], name)),
          ]}
        />
        <tbody>
          {series.flatMap((item) =>
            item.trials.map((trial) => (
              <tr
                key={`${String(item.id)}-${String(trial.index)}`}
                className={trial.disturbed ? "disturbed" : undefined}
              >
                <th scope="row">{formatLabels(item.labels)}</th>
                <td className="num">
                  {trial.index + 1}
                  {trial.disturbed && (
                    <span className="warning-mark" title={trial.disturbed}>
                      {" "}
                      ⊘
                    </span>
                  )}
                  {!trial.exact && (
                    <span
                      className="muted"
                      title="Summary from histogram buckets (3 significant digits)"
                    >
                      {" "}
                      ≈
                    </span>
                  )}
                </td>
                <td className="num">{formatCount(trial.summary.count)}</td>
                {columns.map((key) => (
                  <td
                    key={key}
                    className={`num${trial.unreliable.includes(key) ? " unreliable" : ""}`}
                    title={originNote(key, trial)?.note}
                  >
                    {originNote(key, trial)?.mark}
                    {formatLatency(latencyValue(trial.summary, key), trial)}
                    {trial.unreliable.includes(key) && <span aria-label=" (few samples)"> ⚠</span>}
                  </td>
                ))}
                {metricNames.map((name) => {
                  const value = trial.metrics[name];
                  return (
                    <td key={name} className="num">
                      {value === undefined ? "" : formatValue(value, metricInfo[name]?.unit ?? "")}
                    </td>
                  );
                })}
              </tr>
            )),
          )}
        </tbody>
      </table>
      {disturbed.length > 0 && (
        <ul className="disturbed-trials" aria-label="Trials left out of the verdict">
          {disturbed.map(({ item, trial, reason }) => (
            <li key={`${String(item.id)}-${String(trial.index)}`}>
              ⊘ {formatLabels(item.labels)}, trial {trial.index + 1}, left out of every verdict:{" "}
              {reason}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
