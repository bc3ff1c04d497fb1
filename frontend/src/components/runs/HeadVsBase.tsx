import { Link } from "react-router";

import type { JobRead, RunRead } from "../../api/types";
import { refAt, repositoryHref } from "../../lib/repos";
import { tryCompareHref } from "../../lib/tries";
import { VerdictReasons } from "./VerdictReasons";

/**
 * A try job's run read as a comparison: which commits it measured (the base's from its job),
 * each gated metric of head against base (change, 95 % interval, the smallest change the job
 * could see, outcome), and the way to the compare page's view of the two sides.
 */
export function HeadVsBase({
  run,
  job,
}: {
  run: RunRead;
  job: Pick<JobRead, "ref" | "base"> | undefined;
}) {
  const repo = run.source.repo;
  const base = job?.base ?? null;
  return (
    <>
      <p>
        {repo ? (
          <>
            <Link to={repositoryHref(repo)}>{repo}</Link>:{" "}
          </>
        ) : null}
        head <span className="mono">{refAt(job?.ref, run.source.commit)}</span> against base{" "}
        <span className="mono">{refAt(base?.ref, base?.commit)}</span>, both built and measured
        on {run.host_name ?? "one host"}, their trials interleaved.
      </p>
      {run.verdict_reasons.length > 0 ? (
        <div className="table-scroll">
          <VerdictReasons reasons={run.verdict_reasons} metricInfo={run.metric_info} />
        </div>
      ) : (
        <p className="muted">The gate judged no metric of head against base.</p>
      )}
      <p>
        <Link className="button" to={tryCompareHref(run.id)}>
          Compare head with base
        </Link>{" "}
        <span className="muted small">
          every metric of each series, side=head against side=base
        </span>
      </p>
    </>
  );
}
