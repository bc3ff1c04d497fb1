import { Link } from "react-router";

import type { BisectionRead } from "../../api/types";
import {
  type Culprit,
  culpritsOf,
  formatChange,
  formatWholeShare,
  rangeOf,
  sharesSum,
} from "../../lib/bisections";
import { shortCommit } from "../../lib/format";
import { tryCompareHref, tryProfilesHref } from "../../lib/tries";
import { CommitLink } from "../repos/CommitLink";

/**
 * How a bisection ended, where it named commits: each culprit with its change beside its
 * parent (95 % interval, share of the whole change the ends showed), the way to that
 * measurement and to its differential flame graph (the culprit's step profiles both sides),
 * several ones' shares summed (how much of the range's change they explain); or the range it
 * narrowed the search to. Each commit links to its repository's site when it has a commit URL.
 * Other endings are said by its message.
 */
export function BisectionResult({ bisection }: { bisection: BisectionRead }) {
  const culprits = culpritsOf(bisection.result);
  const lines = (culprit: Culprit) => (
    <CulpritLines culprit={culprit} metric={bisection.metric} commitUrl={bisection.commit_url} />
  );
  if (culprits.length > 0) {
    const several = culprits.length > 1;
    const together = several ? formatWholeShare(sharesSum(culprits)) : null;
    return (
      <section className="panel bisect-culprit" aria-labelledby="culprit-title">
        <h2 id="culprit-title">
          {several ? `Culprits (${String(culprits.length)})` : "Culprit"}
        </h2>
        {several ? (
          <ol className="plain-list bisect-culprits">
            {culprits.map((culprit) => (
              <li key={culprit.sha} data-testid="culprit">
                {lines(culprit)}
              </li>
            ))}
          </ol>
        ) : (
          culprits.map((culprit) => (
            <div key={culprit.sha} data-testid="culprit">
              {lines(culprit)}
            </div>
          ))
        )}
        {together !== null && <p data-testid="culprits-together">Together {together}.</p>}
      </section>
    );
  }
  const range = rangeOf(bisection.result);
  if (range === null || range.length === 0) return null;
  const commits = new Map(bisection.commits.map((commit) => [commit.sha, commit]));
  return (
    <section className="panel" aria-labelledby="range-title">
      <h2 id="range-title">
        Narrowed to {range.length} commit{range.length === 1 ? "" : "s"}
      </h2>
      <ul className="plain-list" data-testid="narrowed-range">
        {range.map((sha) => {
          const commit = commits.get(sha);
          return (
            <li key={sha}>
              <CommitLink sha={sha} commitUrl={bisection.commit_url}>
                <code title={sha}>{shortCommit(sha)}</code>
              </CommitLink>{" "}
              {commit?.subject}
              {commit?.author && <span className="muted"> ({commit.author})</span>}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/**
 * A culprit: its commit (linked to its repository's site when it has a commit URL), its change
 * beside its parent, and the ways to that measurement: the comparison, its flame graphs and run.
 */
function CulpritLines({
  culprit,
  metric,
  commitUrl,
}: {
  culprit: Culprit;
  metric: string;
  commitUrl: string | null;
}) {
  const share = formatWholeShare(culprit.share);
  return (
    <>
      <p>
        <CommitLink sha={culprit.sha} commitUrl={commitUrl}>
          <code title={culprit.sha} data-testid="culprit-sha">
            {shortCommit(culprit.sha)}
          </code>
        </CommitLink>{" "}
        <strong>{culprit.subject}</strong>
        {culprit.author && <span className="muted"> ({culprit.author})</span>}
      </p>
      <p data-testid="culprit-change">
        {metric} {formatChange(culprit.change, culprit.interval)} measured beside its parent
        {share ? `: ${share}` : ""}.
      </p>
      {culprit.run_id !== null && (
        <p>
          <Link className="button" to={tryCompareHref(culprit.run_id)}>
            Compare with its parent
          </Link>{" "}
          <Link className="button" to={tryProfilesHref(culprit.run_id)}>
            Flame graph vs its parent
          </Link>{" "}
          <Link className="button" to={`/runs/${String(culprit.run_id)}`}>
            Run #{culprit.run_id}
          </Link>
        </p>
      )}
    </>
  );
}
