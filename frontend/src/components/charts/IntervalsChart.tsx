import type { MetricInfo } from "../../api/types";
import { intervalKeys, type IntervalRow } from "../../lib/intervals";
import { formatNs } from "../../lib/units";
import { metricLabel } from "../../lib/vocabulary";
import { ChartExport } from "./ChartView";
import { SeriesChart, type ChartLine } from "./SeriesChart";

const atT = (row: IntervalRow) => row.t;
const formatT = (t: number) => `${String(t)} s`;

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
  const lines = intervalKeys(rows).map(
    (key, index): ChartLine<IntervalRow> => ({
      key,
      name: metricLabel(key, metricInfo[key]),
      value: (row) => row.values[key],
      colourIndex: index,
    }),
  );
  return (
    <figure className="chart" aria-label="Latency over time">
      <ChartExport />
      <SeriesChart
        rows={rows}
        lines={lines}
        x={{
          dataKey: "t",
          at: atT,
          domain: ["dataMin", "dataMax"],
          format: formatT,
          title: "time",
        }}
        format={formatNs}
        yWidth={72}
        yLabel="latency"
        tooltipLabel={(t) => `t = ${String(t)} s`}
        height={height}
      />
    </figure>
  );
}
