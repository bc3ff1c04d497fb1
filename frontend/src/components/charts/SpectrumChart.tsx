import { useMemo } from "react";

import {
  xLabel,
  percentileTicks,
  spectrumRows,
  xDomain,
  type SpectrumLine,
  type SpectrumRow,
} from "../../lib/spectrum";
import { formatNs } from "../../lib/units";
import { ChartToolbar, useChartView } from "./ChartView";
import { SeriesChart, type ChartLine } from "./SeriesChart";

const atX = (row: SpectrumRow) => row.x;

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
  const drawn = lines.map(
    (line): ChartLine<SpectrumRow> => ({
      key: line.key,
      name: line.name,
      value: (row) => row.values[line.key],
      colourIndex: line.seriesIndex,
      dashed: line.dashed,
    }),
  );

  return (
    <figure className="chart" aria-label={label}>
      <ChartToolbar view={view} logLabel="Log latency" />
      <SeriesChart
        rows={rows}
        lines={drawn}
        view={view}
        x={{
          dataKey: "x",
          at: atX,
          domain,
          format: xText,
          ticks: ticks.map((tick) => tick.x),
          scale: "log",
          title: "percentile",
        }}
        format={formatNs}
        yWidth={72}
        yLabel="latency"
        tooltipLabel={(x) => (typeof x === "number" ? xText(x) : String(x))}
        height={height}
      />
    </figure>
  );
}
