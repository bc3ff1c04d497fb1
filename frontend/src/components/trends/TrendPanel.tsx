import { useNavigate } from "react-router";

import type { Trend } from "../../hooks/useTrend";
import { formatLabels } from "../../lib/format";
import type { SeriesChoice } from "../../lib/trends";
import { formatValue } from "../../lib/units";
import { TrendChart } from "../charts/TrendChart";
import { ShareButton } from "../common/ShareButton";
import { EmptyState, QueryResult } from "../common/Status";
import { HistoryChoice } from "./HistoryChoice";
import { TrendAnnotations } from "./TrendAnnotations";
import { ChangePoints, EveryPoint, TrendWindows } from "./TrendTables";

const DIRECTION_TEXT: Record<string, string> = {
  lower: "lower is better",
  higher: "higher is better",
  none: "no better direction",
};

/** A metric's history, series by series (`trend`, as useTrend reads it): the chart with its
 * thresholds, change points, window and annotations, and the choice of history (branch,
 * params). */
export function TrendPanel({
  suite,
  scenario,
  metric,
  label,
  series,
  branch,
  host,
  trend,
  canWrite,
  onChoose,
}: {
  suite: string;
  scenario: string;
  metric: string;
  label: string;
  series: SeriesChoice[];
  branch: string | null;
  host: string | null;
  trend: Trend;
  canWrite: boolean;
  /** Draws another history: a branch, params (null: the default one) or none of the run's. */
  onChoose: (choice: Record<string, string | null>) => void;
}) {
  const navigate = useNavigate();
  const { loaded, rows, lines, markers, thresholds, unit, direction } = trend;
  return (
    <QueryResult query={trend.trends} loading="Loading trend…" title="Could not load the trend">
      {() => {
        const history = (
          <HistoryChoice
            trends={loaded}
            names={series.map((item) => formatLabels(item.labels))}
            onBranch={(name) => onChoose({ branch: name, params: null, run: null })}
            onParams={(value) => onChoose({ params: value, run: null })}
          />
        );
        if (rows.length === 0) {
          return (
            <>
              {history}
              <EmptyState title="No values of this metric yet">
                No run of these series on this branch with these params has it.
              </EmptyState>
            </>
          );
        }
        const format = (value: number) => formatValue(value, unit);
        const windows = lines.some((line) => line.window !== null);
        const drawn = loaded[0];
        return (
          <>
            {history}
            {loaded.some((item) => item.resolution === "day") && (
              <p className="warning" role="note">
                This range holds more runs than a chart shows: each point is a day&apos;s median
                from the daily rollups (hover for the day), not a run.
              </p>
            )}
            <p className="muted small">
              {label} in {unit || "no unit"}, {DIRECTION_TEXT[direction] ?? direction}, run after
              run (labelled by commit). Circles and dashed verticals mark change points;{" "}
              {windows ? "the shaded band is the latest run's window, centre to bound; " : ""}
              {thresholds.length > 0 ? "dashed horizontals are SLA thresholds; " : ""}
              {markers.length > 0 ? "grey verticals are annotations (A1, A2…, listed below); " : ""}
              click a point to open its run.
            </p>
            <div className="page-actions">
              {drawn && (
                <ShareButton
                  what={`${metric} trend of ${formatLabels(drawn.labels) || "this series"}`}
                  body={{
                    kind: "trend",
                    trend: {
                      suite,
                      scenario,
                      metric,
                      labels: drawn.labels,
                      ...(branch ? { branch } : {}),
                    },
                  }}
                  canWrite={canWrite}
                />
              )}
            </div>
            <TrendChart
              rows={rows}
              lines={lines}
              thresholds={thresholds}
              annotations={markers}
              unit={unit}
              onOpenRun={(id) => void navigate(`/runs/${String(id)}`)}
            />
            <TrendWindows lines={lines} format={format} />
            <TrendAnnotations markers={markers} suite={suite} host={host} canWrite={canWrite} />
            <ChangePoints lines={lines} format={format} />
            <EveryPoint
              rows={rows}
              lines={lines}
              daily={loaded.some((item) => item.resolution === "day")}
              format={format}
            />
          </>
        );
      }}
    </QueryResult>
  );
}
