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
  formatX,
  percentileTicks,
  spectrumLines,
  spectrumRows,
  xDomain,
  type SpectrumInput,
  type SpectrumRow,
} from "../../lib/spectrum";
import { formatNs } from "../../lib/units";

const PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04"];

/**
 * Latency by percentile, one line per series (dashed: the view not corrected for coordinated
 * omission). x is 1 / (1 - p) on a log scale, so the tail gets as much room as the median.
 */
export function SpectrumChart({ spectra, height = 380 }: { spectra: SpectrumInput[]; height?: number }) {
  const { lines, rows, ticks, domain } = useMemo(() => {
    const lines = spectrumLines(spectra);
    const rows = spectrumRows(lines);
    return { lines, rows, ticks: percentileTicks(rows), domain: xDomain(rows) };
  }, [spectra]);

  return (
    <figure className="chart" aria-label="Latency by percentile">
      <ResponsiveContainer width="100%" height={height}>
        <LineChart data={rows} margin={{ top: 8, right: 24, bottom: 8, left: 8 }}>
          <CartesianGrid stroke="#e5e7eb" />
          <XAxis
            dataKey="x"
            type="number"
            scale="log"
            domain={domain}
            allowDataOverflow
            ticks={ticks.map((tick) => tick.x)}
            tickFormatter={formatX}
            label={{ value: "percentile", position: "insideBottomRight", offset: -4 }}
          />
          <YAxis
            type="number"
            tickFormatter={(value: number) => formatNs(value)}
            width={72}
            label={{ value: "latency", angle: -90, position: "insideLeft" }}
          />
          <Tooltip
            labelFormatter={(x) => (typeof x === "number" ? formatX(x) : String(x))}
            formatter={(value) => (typeof value === "number" ? formatNs(value) : String(value))}
          />
          <Legend />
          {lines.map((line) => (
            <Line
              key={line.key}
              name={line.name}
              dataKey={(row: SpectrumRow) => row.values[line.key]}
              type="linear"
              stroke={PALETTE[line.seriesIndex % PALETTE.length]}
              strokeWidth={2}
              strokeDasharray={line.dashed ? "6 4" : undefined}
              dot={false}
              connectNulls
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}
