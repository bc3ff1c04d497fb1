import { useMemo } from "react";

import type { MetricInfo, SeriesRead, Sweep } from "../../api/types";
import { curveMetrics, runCurves } from "../../lib/curves";
import { describeMetric } from "../../lib/vocabulary";
import { CurveChart } from "../charts/CurveChart";

/** A swept run's load-latency curves: p50, p99 and its rates against the sweep axis. */
export function SweepCurves({
  series,
  sweep,
  metricInfo,
}: {
  series: SeriesRead[];
  sweep: Sweep;
  metricInfo: Record<string, MetricInfo>;
}) {
  const charts = useMemo(
    () =>
      curveMetrics(metricInfo, series).map((metric) => ({
        info: describeMetric(metric, metricInfo[metric]),
        curves: runCurves(series, sweep, metric),
      })),
    [series, sweep, metricInfo],
  );
  return (
    <div className="curve-grid">
      {charts.map(({ info, curves }) => (
        <CurveChart
          key={info.name}
          curves={curves}
          axis={sweep.axis}
          metricLabel={info.label}
          unit={info.unit}
        />
      ))}
    </div>
  );
}
