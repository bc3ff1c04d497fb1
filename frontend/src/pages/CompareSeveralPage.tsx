import { useMemo } from "react";

import { useCompares } from "../api/analysis";
import { useSeriesSpectra } from "../api/runs";
import type { CompareRead } from "../api/types";
import { SpectrumChart } from "../components/charts/SpectrumChart";
import { QueryResult } from "../components/common/Status";
import { SeveralRuns } from "../components/compare/SeveralRuns";
import { Page } from "../components/layout/Page";
import { pickedLines, spectrumPicks } from "../lib/multiCompare";

/** /compare?runs=3,5,9: the first run against each of the others, and their spectra. */
export function CompareSeveralPage({ runIds }: { runIds: number[] }) {
  const [first, ...others] = runIds;
  const comparisons = useCompares(others.map((candidate) => ({ baseline: first!, candidate })));
  return (
    <Page title={<>Compare {runIds.length} runs</>}>
      <QueryResult query={comparisons} loading="Comparing…" title="Could not compare">
        {(data) => {
          const loaded = data.filter((item): item is CompareRead => item !== undefined);
          return (
            <SeveralRuns
              comparisons={loaded}
              spectra={<SeveralSpectra comparisons={loaded} />}
            />
          );
        }}
      </QueryResult>
    </Page>
  );
}

/** The first few series of every run on one chart: a colour per run, the first dashed. */
function SeveralSpectra({ comparisons }: { comparisons: CompareRead[] }) {
  const picks = useMemo(() => spectrumPicks(comparisons), [comparisons]);
  const spectra = useSeriesSpectra(picks);
  const lines = useMemo(() => pickedLines(picks, spectra.data), [picks, spectra.data]);
  return (
    <QueryResult query={spectra} loading="Loading spectra…" title="Could not load the spectra">
      {() => <SpectrumChart lines={lines} label="Several runs' latency by percentile" />}
    </QueryResult>
  );
}
