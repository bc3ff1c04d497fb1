import { useState } from "react";

import type { MetricInfo, SeriesRead } from "../../api/types";
import { formatLabels } from "../../lib/format";
import { intervalRows, trialsWithIntervals } from "../../lib/intervals";
import { IntervalsChart } from "../charts/IntervalsChart";
import { LabelledSelect } from "../common/Select";
import { EmptyState } from "../common/Status";

/** Intervals are per trial: pick the series and the trial (the first with intervals by default). */
export function IntervalsPanel({
  series,
  metricInfo,
}: {
  series: SeriesRead[];
  metricInfo: Record<string, MetricInfo>;
}) {
  const withIntervals = series.filter((item) => trialsWithIntervals(item.trials).length > 0);
  const [seriesId, setSeriesId] = useState<number | null>(null);
  const [trialIndex, setTrialIndex] = useState<number | null>(null);
  if (withIntervals.length === 0) {
    return <p className="muted">The load programs of this run reported no intervals.</p>;
  }
  const chosen = withIntervals.find((item) => item.id === seriesId) ?? withIntervals[0]!;
  const trials = trialsWithIntervals(chosen.trials);
  const trial = trials.find((item) => item.index === trialIndex) ?? trials[0]!;
  const rows = intervalRows(trial.intervals);
  return (
    <>
      <div className="toolbar">
        {withIntervals.length > 1 && (
          <LabelledSelect
            label="Series"
            value={chosen.id}
            options={withIntervals.map((item) => ({
              value: item.id,
              text: formatLabels(item.labels),
            }))}
            onChange={(value) => setSeriesId(Number(value))}
          />
        )}
        {trials.length > 1 && (
          <LabelledSelect
            label="Trial"
            value={trial.index}
            options={trials.map((item) => ({ value: item.index, text: item.index + 1 }))}
            onChange={(value) => setTrialIndex(Number(value))}
          />
        )}
      </div>
      {rows.length === 0 ? (
        <EmptyState title="These intervals carry no latency values" />
      ) : (
        <IntervalsChart rows={rows} metricInfo={metricInfo} />
      )}
    </>
  );
}
