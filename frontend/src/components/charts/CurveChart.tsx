import { useMemo } from "react";

import type { Verdict } from "../../api/types";
import { curveRows, logScale, type Curve, type CurveRow } from "../../lib/curves";
import { formatNumber, formatValue } from "../../lib/units";
import { ChartToolbar, useChartView } from "./ChartView";
import { colour } from "./palette";
import { SeriesChart, type ChartLine } from "./SeriesChart";

const VERDICT_COLOUR: Record<Verdict, string> = {
  regressed: "var(--verdict-regressed)",
  improved: "var(--verdict-improved)",
  unchanged: "var(--verdict-unchanged)",
  inconclusive: "var(--verdict-inconclusive)",
};

const atX = (row: CurveRow) => row.x;
const formatX = (x: number) => formatNumber(x);

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
  const lines = curves.map(
    (curve): ChartLine<CurveRow> => ({
      key: curve.key,
      name: curve.name,
      value: (row) => row.values[curve.key],
      colourIndex: curve.group,
      dashed: curve.dashed,
      dot: (props: { cx?: number; cy?: number; payload?: CurveRow; index?: number }) => {
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
      },
    }),
  );
  return (
    <figure className="chart curve-chart" aria-label={`${metricLabel} against ${axis}`}>
      <figcaption>
        {metricLabel} <span className="muted">against {axis}</span>
      </figcaption>
      <ChartToolbar view={view} />
      <SeriesChart
        rows={rows}
        lines={lines}
        view={view}
        x={{
          dataKey: "x",
          at: atX,
          domain: ["dataMin", "dataMax"],
          format: formatX,
          ticks: rows.map((row) => row.x),
          scale: log ? "log" : "linear",
          title: axis,
        }}
        format={(value) => formatValue(value, unit)}
        yWidth={80}
        tooltipLabel={(x) => `${axis} ${String(x)}`}
        height={height}
      />
    </figure>
  );
}
