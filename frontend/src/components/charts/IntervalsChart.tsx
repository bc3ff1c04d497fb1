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

import type { MetricInfo } from "../../api/types";
import { intervalKeys, type IntervalRow } from "../../lib/intervals";
import { formatNs } from "../../lib/units";
import { metricLabel } from "../../lib/vocabulary";
import { ChartExport, seriesLine } from "./ChartView";

/** Latency over time within a trial: one line per percentile the intervals carry. */
export function IntervalsChart({
  rows,
  metricInfo,
  height = 300,
}: {
  rows: IntervalRow[];
  metricInfo: Record<string, MetricInfo>;
  height?: number;
}) {
  const present = intervalKeys(rows);
  return (
    <figure className="chart" aria-label="Latency over time">
      <ChartExport />
      <ResponsiveContainer width="100%" height={height}>
        <LineChart data={rows} margin={{ top: 8, right: 24, bottom: 8, left: 8 }}>
          <CartesianGrid stroke="var(--grid)" />
          <XAxis
            dataKey="t"
            type="number"
            domain={["dataMin", "dataMax"]}
            tickFormatter={(t: number) => `${String(t)} s`}
            label={{ value: "time", position: "insideBottomRight", offset: -4 }}
          />
          <YAxis
            type="number"
            tickFormatter={(value: number) => formatNs(value)}
            width={72}
            label={{ value: "latency", angle: -90, position: "insideLeft" }}
          />
          <Tooltip
            labelFormatter={(t) => `t = ${String(t)} s`}
            formatter={(value) => (typeof value === "number" ? formatNs(value) : String(value))}
          />
          <Legend />
          {present.map((key, index) => (
            <Line
              key={key}
              {...seriesLine({
                name: metricLabel(key, metricInfo[key]),
                value: (row: IntervalRow) => row.values[key],
                colourIndex: index,
              })}
              dot={false}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}
