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
import { ChartToolbar, seriesLine, shownValues, useChartView, valueAxis } from "./ChartView";
import { colour } from "./palette";

const VERDICT_COLOUR: Record<Verdict, string> = {
  regressed: "var(--verdict-regressed)",
  improved: "var(--verdict-improved)",
  unchanged: "var(--verdict-unchanged)",
  inconclusive: "var(--verdict-inconclusive)",
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
  const view = useChartView(curves.map((curve) => curve.name));
  const values = useMemo(() => shownValues(view.zoom, rows, (row) => row.x), [view.zoom, rows]);
  return (
    <figure className="chart curve-chart" aria-label={`${metricLabel} against ${axis}`}>
      <figcaption>
        {metricLabel} <span className="muted">against {axis}</span>
      </figcaption>
      <ChartToolbar view={view} />
      <ResponsiveContainer width="100%" height={height}>
        <LineChart data={rows} margin={{ top: 8, right: 24, bottom: 8, left: 8 }} {...view.mouse}>
          <CartesianGrid stroke="var(--grid)" />
          <XAxis
            dataKey="x"
            type="number"
            scale={log ? "log" : "linear"}
            domain={view.zoom ?? ["dataMin", "dataMax"]}
            allowDataOverflow
            ticks={rows.map((row) => row.x)}
            tickFormatter={(x: number) => formatNumber(x)}
            label={{ value: axis, position: "insideBottomRight", offset: -4 }}
          />
          <YAxis
            type="number"
            {...valueAxis(view, values)}
            tickFormatter={(value: number) => formatValue(value, unit)}
            width={80}
          />
          <Tooltip
            labelFormatter={(x) => `${axis} ${String(x)}`}
            formatter={(value) => (typeof value === "number" ? formatValue(value, unit) : "")}
          />
          <Legend onClick={view.onLegendClick} />
          {view.selection}
          {curves.map((curve) => (
            <Line
              key={curve.key}
              {...seriesLine({
                name: curve.name,
                value: (row: CurveRow) => row.values[curve.key],
                colourIndex: curve.group,
                view,
                dashed: curve.dashed,
              })}
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
                    stroke="var(--surface)"
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
