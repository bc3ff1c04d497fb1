import { Link } from "react-router";

import type { BisectionRead } from "../../api/types";
import { culpritOf, formatChange, formatWholeShare, rangeOf } from "../../lib/bisections";
import { shortCommit } from "../../lib/format";
import { tryCompareHref } from "../../lib/tries";

/**
 * How a bisection ended, where it named commits: the culprit with its change beside its
 * parent (95 % interval, share of the whole change the ends showed) and the way to that
 * measurement; or the range it narrowed the search to. Other endings are said by its message.
 */
export function BisectionResult({ bisection }: { bisection: BisectionRead }) {
  const culprit = culpritOf(bisection.result);
  if (culprit !== null) {
    const share = formatWholeShare(culprit.share);
    return (
      <section className="panel bisect-culprit" aria-labelledby="culprit-title">
        <h2 id="culprit-title">Culprit</h2>
        <p>
          <code title={culprit.sha} data-testid="culprit-sha">
            {shortCommit(culprit.sha)}
          </code>{" "}
          <strong>{culprit.subject}</strong>
          {culprit.author && <span className="muted"> ({culprit.author})</span>}
        </p>
        <p data-testid="culprit-change">
          {bisection.metric} {formatChange(culprit.change, culprit.interval)} measured beside its
          parent{share ? `: ${share}` : ""}.
        </p>
        {culprit.run_id !== null && (
          <p>
            <Link className="button" to={tryCompareHref(culprit.run_id)}>
              Compare with its parent
            </Link>{" "}
            <Link className="button" to={`/runs/${String(culprit.run_id)}`}>
              Run #{culprit.run_id}
            </Link>
          </p>
        )}
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
              <code title={sha}>{shortCommit(sha)}</code> {commit?.subject}
              {commit?.author && <span className="muted"> ({commit.author})</span>}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
