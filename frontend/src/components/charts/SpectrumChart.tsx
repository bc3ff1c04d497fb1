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

import {
  xLabel,
  percentileTicks,
  spectrumRows,
  xDomain,
  type SpectrumLine,
  type SpectrumRow,
} from "../../lib/spectrum";
import { formatNs } from "../../lib/units";
import { ChartToolbar, seriesLine, shownValues, useChartView, valueAxis } from "./ChartView";

/**
 * Latency by percentile, one line per series and view (dashed: the uncorrected view of an
 * open-loop run, or the baseline in a comparison). x is 1 / (1 - p) on a log scale, so the tail
 * gets as much room as the median.
 */
export function SpectrumChart({
  lines,
  height = 380,
  label = "Latency by percentile",
}: {
  lines: SpectrumLine[];
  height?: number;
  label?: string;
}) {
  const { rows, ticks, domain, label: xText } = useMemo(() => {
    const rows = spectrumRows(lines);
    return { rows, ticks: percentileTicks(rows), domain: xDomain(rows), label: xLabel(rows) };
  }, [lines]);
  const view = useChartView(lines.map((line) => line.name));
  const values = useMemo(() => shownValues(view.zoom, rows, (row) => row.x), [view.zoom, rows]);

  return (
    <figure className="chart" aria-label={label}>
      <ChartToolbar view={view} logLabel="Log latency" />
      <ResponsiveContainer width="100%" height={height}>
        <LineChart data={rows} margin={{ top: 8, right: 24, bottom: 8, left: 8 }} {...view.mouse}>
          <CartesianGrid stroke="var(--grid)" />
          <XAxis
            dataKey="x"
            type="number"
            scale="log"
            domain={view.zoom ?? domain}
            allowDataOverflow
            ticks={ticks.map((tick) => tick.x)}
            tickFormatter={xText}
            label={{ value: "percentile", position: "insideBottomRight", offset: -4 }}
          />
          <YAxis
            type="number"
            {...valueAxis(view, values)}
            tickFormatter={(value: number) => formatNs(value)}
            width={72}
            label={{ value: "latency", angle: -90, position: "insideLeft" }}
          />
          <Tooltip
            labelFormatter={(x) => (typeof x === "number" ? xText(x) : String(x))}
            formatter={(value) => (typeof value === "number" ? formatNs(value) : String(value))}
          />
          <Legend onClick={view.onLegendClick} />
          {view.selection}
          {lines.map((line) => (
            <Line
              key={line.key}
              {...seriesLine({
                name: line.name,
                value: (row: SpectrumRow) => row.values[line.key],
                colourIndex: line.seriesIndex,
                view,
                dashed: line.dashed,
              })}
              dot={false}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}
