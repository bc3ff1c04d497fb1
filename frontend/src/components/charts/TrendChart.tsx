import {
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ReferenceDot,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";

import type { ChangeMarker, MergedTrendRow, Threshold } from "../../lib/trends";
import { formatValue } from "../../lib/units";
import { colour } from "./palette";

export interface TrendLine {
  key: string;
  name: string;
  seriesIndex: number;
  changes: ChangeMarker[];
}

/**
 * A metric over time, a line per series: change points as a dot on the run after the change
 * and a dashed vertical line, SLA thresholds as horizontal lines. Clicking a point opens its run.
 */
export function TrendChart({
  rows,
  lines,
  thresholds,
  unit,
  onOpenRun,
  height = 380,
}: {
  rows: MergedTrendRow[];
  lines: TrendLine[];
  thresholds: Threshold[];
  unit: string;
  onOpenRun: (runId: number) => void;
  height?: number;
}) {
  const format = (value: number) => formatValue(value, unit);
  return (
    <figure className="chart" aria-label="Metric over time">
      <ResponsiveContainer width="100%" height={height}>
        <LineChart data={rows} margin={{ top: 16, right: 32, bottom: 8, left: 8 }}>
          <CartesianGrid stroke="#e5e7eb" />
          <XAxis
            dataKey="t"
            type="number"
            scale="time"
            domain={["dataMin", "dataMax"]}
            tickFormatter={(t: number) => formatTick(t)}
            minTickGap={24}
          />
          <YAxis type="number" tickFormatter={format} width={88} domain={["auto", "auto"]} />
          <Tooltip
            labelFormatter={(t, payload) => {
              const row = payload[0]?.payload as MergedTrendRow | undefined;
              const when = typeof t === "number" ? formatTick(t, true) : String(t);
              if (!row) return when;
              return row.runId === null ? `day of ${when}` : `run #${String(row.runId)} · ${when}`;
            }}
            formatter={(value) => (typeof value === "number" ? format(value) : String(value))}
          />
          <Legend />
          {thresholds.map((threshold) => (
            <ReferenceLine
              key={`sla-${String(threshold.ruleId)}`}
              y={threshold.value}
              ifOverflow="extendDomain"
              stroke={threshold.severity === "critical" ? "#b42318" : "#d97706"}
              strokeDasharray="4 4"
              label={{ value: `SLA: ${threshold.name}`, position: "insideTopRight", fontSize: 12 }}
            />
          ))}
          {lines.flatMap((line) =>
            line.changes.map((change) => (
              <ReferenceLine
                key={`cpl-${line.key}-${String(change.runId)}`}
                x={change.t}
                stroke={colour(line.seriesIndex)}
                strokeDasharray="2 4"
                label={{ value: change.label, position: "top", fontSize: 12 }}
              />
            )),
          )}
          {lines.map((line) => (
            <Line
              key={line.key}
              name={line.name}
              dataKey={(row: MergedTrendRow) => row.values[line.key]}
              type="linear"
              stroke={colour(line.seriesIndex)}
              strokeWidth={2}
              connectNulls
              isAnimationActive={false}
              dot={(props) => {
                const row = props.payload as MergedTrendRow;
                if (props.cx == null || props.cy == null || row.values[line.key] === undefined) {
                  return <g key={`${line.key}-${String(props.index)}`} />;
                }
                return (
                  <circle
                    key={`${line.key}-${String(props.index)}`}
                    className="trend-point"
                    data-run-id={row.runId}
                    cx={props.cx}
                    cy={props.cy}
                    r={4}
                    fill="#fff"
                    stroke={colour(line.seriesIndex)}
                    strokeWidth={2}
                    onClick={() => row.runId !== null && onOpenRun(row.runId)}
                  />
                );
              }}
              // The hover highlight lets clicks through to the point under it, which opens
              // the run (a highlight catching them made clicks depend on the hover's timing).
              activeDot={(props) => (
                <circle
                  className="trend-point-active"
                  cx={props.cx}
                  cy={props.cy}
                  r={6}
                  fill={colour(line.seriesIndex)}
                  pointerEvents="none"
                />
              )}
            />
          ))}
          {lines.flatMap((line) =>
            line.changes.map((change) => (
              <ReferenceDot
                key={`cpd-${line.key}-${String(change.runId)}`}
                x={change.t}
                y={change.value}
                r={7}
                fill="none"
                stroke={colour(line.seriesIndex)}
                strokeWidth={2}
              />
            )),
          )}
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}

/** Time ticks in UTC: "11-22 10:00" (with the year in tooltips). */
function formatTick(t: number, long = false): string {
  const iso = new Date(t).toISOString();
  return long
    ? `${iso.slice(0, 16).replace("T", " ")} UTC`
    : `${iso.slice(5, 16).replace("T", " ")}`;
}
