import { Link, useNavigate } from "react-router";

import type { RunSummary } from "../../api/types";
import { formatDateTime, formatLabels, shortCommit, stringLabels } from "../../lib/format";
import { nextOrder, type RunOrder, type SortColumn } from "../../lib/runFilters";
import { formatValue } from "../../lib/units";
import { RunVerdictBadge } from "../common/VerdictBadge";
import { WindowDelta } from "./WindowDelta";

/**
 * Runs, one per row, with their headline (the series failed on, else the worst, else the
 * first: P99 and throughput); a row opens its
 * run. With `picked` the first column holds a checkbox per run, to choose runs to compare;
 * with `onOrder` the Suite, P99 and Started headers sort the list (on the server, all pages).
 */
export function RunsTable({
  runs,
  picked,
  onTogglePick,
  maxPicks = 2,
  order = "-started_at",
  onOrder,
}: {
  runs: RunSummary[];
  picked?: number[];
  maxPicks?: number;
  onTogglePick?: (run: RunSummary) => void;
  order?: RunOrder;
  onOrder?: (order: RunOrder) => void;
}) {
  const navigate = useNavigate();
  const picking = picked !== undefined && onTogglePick !== undefined;
  return (
    <table className="table runs-table">
      <thead>
        <tr>
          {picking && (
            <th scope="col">
              <span className="visually-hidden">Compare</span>
            </th>
          )}
          <th scope="col">ID</th>
          <SortHeader column="suite" label="Suite" order={order} onOrder={onOrder} />
          <th scope="col">Scenario</th>
          <th scope="col">Branch</th>
          <th scope="col">Commit</th>
          <th scope="col">Host</th>
          <th scope="col">Source</th>
          <th scope="col">Verdict</th>
          <SortHeader column="p99" label="P99" order={order} onOrder={onOrder} className="num" />
          <th scope="col" className="num">
            Throughput /s
          </th>
          <SortHeader column="started_at" label="Started" order={order} onOrder={onOrder} />
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => {
          const isPicked = picked?.includes(run.id) ?? false;
          return (
            <tr
              key={run.id}
              data-run-id={run.id}
              className={`clickable${isPicked ? " picked" : ""}`}
              onClick={() => void navigate(`/runs/${String(run.id)}`)}
            >
              {picking && (
                <td onClick={(event) => event.stopPropagation()}>
                  <input
                    type="checkbox"
                    checked={isPicked}
                    disabled={!isPicked && picked.length >= maxPicks}
                    onChange={() => onTogglePick(run)}
                    aria-label={`Pick run #${String(run.id)} to compare`}
                  />
                </td>
              )}
              <td>
                <Link to={`/runs/${String(run.id)}`} onClick={(event) => event.stopPropagation()}>
                  #{run.id}
                </Link>
              </td>
              <td>{run.suite}</td>
              <td>{run.scenario}</td>
              <td>{run.source.branch ?? "—"}</td>
              <td className="mono" title={run.source.commit ?? undefined}>
                {shortCommit(run.source.commit)}
              </td>
              <td>{run.host_name ?? "—"}</td>
              <td>
                <span className={`badge badge-${run.source.kind}`}>{run.source.kind}</span>
              </td>
              <td>
                <RunVerdictBadge verdict={run.verdict} />
              </td>
              <Headline run={run} />
              <td className="nowrap">{formatDateTime(run.started_at)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function SortHeader({
  column,
  label,
  order,
  onOrder,
  className,
}: {
  column: SortColumn;
  label: string;
  order: RunOrder;
  onOrder?: (order: RunOrder) => void;
  className?: string;
}) {
  const sorted = order.replace("-", "") === column;
  const descending = order.startsWith("-");
  return (
    <th
      scope="col"
      className={className}
      aria-sort={sorted ? (descending ? "descending" : "ascending") : undefined}
    >
      {onOrder ? (
        <button
          type="button"
          className="link-button sort-button"
          onClick={() => onOrder(nextOrder(order, column))}
        >
          {label}
          {sorted ? (descending ? " ▼" : " ▲") : ""}
        </button>
      ) : (
        label
      )}
    </th>
  );
}

/**
 * The series the run failed on (else its worst against its window, else its first): P99,
 * its change against its window, throughput; the series named on hover.
 */
function Headline({ run }: { run: RunSummary }) {
  const headline = run.headline;
  const title = headline ? `series: ${formatLabels(stringLabels(headline.series))}` : undefined;
  const guessed = headline?.p99_interpolated
    ? "; ~ interpolated: the harness printed no P99"
    : "";
  return (
    <>
      <td className="num nowrap" title={title && title + guessed}>
        {headline?.p99 != null
          ? (guessed ? "~" : "") + formatValue(headline.p99, "ns")
          : "—"}{" "}
        <WindowDelta pct={headline?.window_delta_pct ?? null} />
      </td>
      <td className="num nowrap" title={title}>
        {headline?.throughput != null ? formatValue(headline.throughput, "") : "—"}
      </td>
    </>
  );
}
