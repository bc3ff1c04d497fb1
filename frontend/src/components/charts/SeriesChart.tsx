import { useMemo, type ReactNode } from "react";
import {
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
  type LineProps,
  type Margin,
  type TooltipProps,
  type XAxisProps,
} from "recharts";

import { shownValues, valueAxis, type ChartView } from "./ChartView";
import { colour } from "./palette";

/** One series' line: its name in the legend, its value in each row, its colour (by index). */
export interface ChartLine<Row> {
  key: string;
  name: string;
  value: (row: Row) => number | undefined;
  colourIndex: number;
  /** A second side's line (a baseline, an uncorrected view); set: a plain line in the legend. */
  dashed?: boolean;
  /** How its points are drawn (none by default). */
  dot?: LineProps["dot"];
  activeDot?: LineProps["activeDot"];
}

/** The x axis: the rows' place on it, its domain before a zoom, its ticks and their text. */
export interface ChartX<Row> {
  dataKey: string;
  at: (row: Row) => number;
  domain: XAxisProps["domain"];
  format: (x: number) => string;
  ticks?: number[];
  scale?: "log" | "linear";
  /** What the axis measures, in its corner. */
  title?: string;
  allowDecimals?: boolean;
  padding?: { left: number; right: number };
}

const MARGIN: Margin = { top: 8, right: 24, bottom: 8, left: 8 };

/**
 * The line chart every series chart is: its rows, a line per series, a value axis in the
 * chart's unit (refitted to a zoom, log when the reader asks), the tooltip and the legend.
 * With `view` the reader zooms (the x axis then shows the zoom's span), drags and hides series
 * (ChartView). Reference marks are drawn under the lines (`children`) and over them (`over`).
 */
export function SeriesChart<Row extends { values: Record<string, number | undefined> }>({
  rows,
  lines,
  view,
  x,
  format,
  yWidth,
  yLabel,
  tooltipLabel,
  height,
  margin = MARGIN,
  children,
  over,
}: {
  rows: Row[];
  lines: ChartLine<Row>[];
  view?: ChartView;
  x: ChartX<Row>;
  /** A value as the axis and the tooltip say it. */
  format: (value: number) => string;
  yWidth: number;
  yLabel?: string;
  tooltipLabel: TooltipProps<number, string>["labelFormatter"];
  height: number;
  margin?: Margin;
  children?: ReactNode;
  over?: ReactNode;
}) {
  const zoom = view?.zoom ?? null;
  const at = x.at;
  const values = useMemo(() => shownValues(zoom, rows, at), [zoom, rows, at]);
  return (
    <ResponsiveContainer width="100%" height={height}>
      <LineChart data={rows} margin={margin} {...view?.mouse}>
        <CartesianGrid stroke="var(--grid)" />
        <XAxis
          dataKey={x.dataKey}
          type="number"
          scale={x.scale}
          domain={zoom ?? x.domain}
          allowDataOverflow={view !== undefined}
          ticks={x.ticks}
          allowDecimals={x.allowDecimals}
          tickFormatter={x.format}
          padding={x.padding}
          label={
            x.title === undefined
              ? undefined
              : { value: x.title, position: "insideBottomRight", offset: -4 }
          }
        />
        <YAxis
          type="number"
          {...(view && valueAxis(view, values))}
          tickFormatter={format}
          width={yWidth}
          label={
            yLabel === undefined
              ? undefined
              : { value: yLabel, angle: -90, position: "insideLeft" }
          }
        />
        <Tooltip
          labelFormatter={tooltipLabel}
          formatter={(value) => (typeof value === "number" ? format(value) : String(value))}
        />
        <Legend onClick={view?.onLegendClick} />
        {view?.selection}
        {children}
        {lines.map((line) => (
          <Line
            key={line.key}
            name={line.name}
            dataKey={line.value}
            type="linear"
            stroke={colour(line.colourIndex)}
            strokeWidth={2}
            strokeDasharray={line.dashed ? "6 4" : undefined}
            legendType={line.dashed === undefined ? undefined : "plainline"}
            hide={view?.hidden.has(line.name) ?? false}
            connectNulls
            isAnimationActive={false}
            dot={line.dot ?? false}
            activeDot={line.activeDot}
          />
        ))}
        {over}
      </LineChart>
    </ResponsiveContainer>
  );
}
