import { useState } from "react";

import type { SeriesRead } from "../../api/types";
import { runCsvUrl, trialHlogUrl } from "../../lib/downloads";
import { formatLabels } from "../../lib/format";
import { LabelledSelect } from "../common/Select";

/** Download the run's summary as CSV, or any trial's histogram as an HdrHistogram log. */
export function RunDownloads({ runId, series }: { runId: number; series: SeriesRead[] }) {
  const trials = series.flatMap((item) =>
    item.trials.map((trial) => ({
      key: `${String(item.id)}-${String(trial.index)}`,
      label: `${formatLabels(item.labels)} · trial ${String(trial.index + 1)}`,
      href: trialHlogUrl(runId, item.id, trial.index),
    })),
  );
  const [chosen, setChosen] = useState(trials[0]?.key ?? "");
  const trial = trials.find((item) => item.key === chosen) ?? trials[0];
  return (
    <div className="toolbar" role="group" aria-label="Downloads">
      <a className="button" href={runCsvUrl(runId)} download>
        Summary (CSV)
      </a>
      {trial && (
        <>
          <LabelledSelect
            label="Trial"
            value={trial.key}
            options={trials.map((item) => ({ value: item.key, text: item.label }))}
            onChange={setChosen}
          />
          <a className="button" href={trial.href} download>
            Histogram (.hlog)
          </a>
        </>
      )}
    </div>
  );
}
