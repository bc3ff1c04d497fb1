import { useMemo } from "react";
import {
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";

import type { Verdict } from "../../api/types";
import { curveRows, logScale, type Curve, type CurveRow } from "../../lib/curves";
import { formatNumber, formatValue } from "../../lib/units";
import { colour } from "./palette";

const VERDICT_COLOUR: Record<Verdict, string> = {
  regressed: "#dc2626",
  improved: "#16a34a",
  unchanged: "#6b7280",
  inconclusive: "#ca8a04",
};

/**
 * A metric against a swept axis: one line per curve (dashed: a comparison's baseline). A point
 * that carries a verdict is drawn in the verdict's colour (red regressed, green improved).
 */
export function CurveChart({
  curves,
  axis,
  metricLabel,
  unit,
  height = 300,
}: {
  curves: Curve[];
  axis: string;
  metricLabel: string;
  unit: string;
  height?: number;
}) {
  const rows = useMemo(() => curveRows(curves), [curves]);
  const log = logScale(rows);
  return (
    <figure className="chart curve-chart" aria-label={`${metricLabel} against ${axis}`}>
      <figcaption>
        {metricLabel} <span className="muted">against {axis}</span>
      </figcaption>
      <ResponsiveContainer width="100%" height={height}>
        <LineChart data={rows} margin={{ top: 8, right: 24, bottom: 8, left: 8 }}>
          <CartesianGrid stroke="#e5e7eb" />
          <XAxis
            dataKey="x"
            type="number"
            scale={log ? "log" : "linear"}
            domain={["dataMin", "dataMax"]}
            ticks={rows.map((row) => row.x)}
            tickFormatter={(x: number) => formatNumber(x)}
            label={{ value: axis, position: "insideBottomRight", offset: -4 }}
          />
          <YAxis
            type="number"
            tickFormatter={(value: number) => formatValue(value, unit)}
            width={80}
          />
          <Tooltip
            labelFormatter={(x) => `${axis} ${String(x)}`}
            formatter={(value) => (typeof value === "number" ? formatValue(value, unit) : "")}
          />
          <Legend />
          {curves.map((curve) => (
            <Line
              key={curve.key}
              name={curve.name}
              dataKey={(row: CurveRow) => row.values[curve.key]}
              type="linear"
              stroke={colour(curve.group)}
              strokeWidth={2}
              strokeDasharray={curve.dashed ? "6 4" : undefined}
              legendType="plainline"
              connectNulls
              isAnimationActive={false}
              dot={(props: { cx?: number; cy?: number; payload?: CurveRow; index?: number }) => {
                const verdict = props.payload?.verdicts[curve.key];
                const fill = verdict ? VERDICT_COLOUR[verdict] : colour(curve.group);
                return (
                  <circle
                    key={`${curve.key}-${String(props.index)}`}
                    cx={props.cx}
                    cy={props.cy}
                    r={verdict ? 5 : 3}
                    fill={fill}
                    stroke="white"
                    data-verdict={verdict}
                  />
                );
              }}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}
