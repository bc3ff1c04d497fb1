import type { RunRef } from "../../api/types";
import { formatDateTime, shortCommit } from "../../lib/format";
import { MetaItem } from "../common/Meta";
import { RunLink } from "../common/RunLink";

export function RunRefCard({ role, run }: { role: "Baseline" | "Candidate"; run: RunRef }) {
  return (
    <div className="panel run-ref">
      <h3>
        {role}: <RunLink id={run.id} text="run #" />
      </h3>
      <dl className="kv">
        <MetaItem term="Benchmark">
          {run.suite} / {run.scenario}
        </MetaItem>
        <MetaItem term="Branch">{run.branch ?? "—"}</MetaItem>
        <MetaItem term="Commit" className="mono" title={run.commit ?? undefined}>
          {shortCommit(run.commit)}
        </MetaItem>
        <MetaItem term="Host">{run.host_name ?? "—"}</MetaItem>
        <MetaItem term="Started">{formatDateTime(run.started_at)}</MetaItem>
      </dl>
    </div>
  );
}

/** The two runs compared, side by side. */
export function RunRefCards({ baseline, candidate }: { baseline: RunRef; candidate: RunRef }) {
  return (
    <div className="two-columns">
      <RunRefCard role="Baseline" run={baseline} />
      <RunRefCard role="Candidate" run={candidate} />
    </div>
  );
}
