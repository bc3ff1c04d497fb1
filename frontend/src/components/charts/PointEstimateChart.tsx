import {
  CartesianGrid,
  ErrorBar,
  Scatter,
  ScatterChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";

import type { PointEstimate } from "../../lib/pointEstimates";
import { formatNs } from "../../lib/units";
import { colour } from "./palette";
import { ChartExport } from "./ChartView";

/** Each series' mean of its trials as a dot, the trials' range as its bar. */
export function PointEstimateChart({ estimates }: { estimates: PointEstimate[] }) {
  const data = estimates.map((item, index) => ({ ...item, index }));
  return (
    <figure className="chart" aria-label="Mean of the trials, with their range">
      <ChartExport />
      <ResponsiveContainer width="100%" height={Math.max(160, 48 * estimates.length + 60)}>
        <ScatterChart layout="vertical" margin={{ top: 8, right: 24, bottom: 8, left: 8 }}>
          <CartesianGrid stroke="var(--grid)" />
          <XAxis type="number" dataKey="mean" tickFormatter={(value: number) => formatNs(value)} />
          <YAxis
            type="number"
            dataKey="index"
            domain={[-0.5, estimates.length - 0.5]}
            ticks={data.map((item) => item.index)}
            tickFormatter={(index: number) => estimates[index]?.name ?? ""}
            width={220}
          />
          <Tooltip
            formatter={(value) => (typeof value === "number" ? formatNs(value) : String(value))}
          />
          <Scatter data={data} fill={colour(0)} isAnimationActive={false}>
            <ErrorBar dataKey="range" direction="x" stroke={colour(0)} width={6} />
          </Scatter>
        </ScatterChart>
      </ResponsiveContainer>
      <figcaption className="muted small">
        The harness reports one value a trial (a mean over its iterations), not a distribution:
        each dot is the mean of the trials, its bar their range.
      </figcaption>
    </figure>
  );
}
