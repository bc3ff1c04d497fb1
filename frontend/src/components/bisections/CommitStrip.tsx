import type { BisectionCommit, CommitState } from "../../api/types";
import { COMMIT_STATES, commitCellClass, commitTitle, countStates } from "../../lib/bisections";
import { shortCommit } from "../../lib/format";
import { commitHref } from "../../lib/repos";
import { CommitLink } from "../repos/CommitLink";

/**
 * A bisection's range as a strip, one cell per commit, oldest (good) on the left, coloured by
 * what the search knows of it; each cell names its commit on hover (and to screen readers),
 * the culprit is marked, and a legend counts each state. With the repository's commit URL,
 * each cell and each end links to its commit (the cells, up to a thousand, are not tab stops;
 * the ends are).
 */
export function CommitStrip({
  commits,
  commitUrl = null,
}: {
  commits: BisectionCommit[];
  commitUrl?: string | null;
}) {
  const first = commits[0];
  const last = commits[commits.length - 1];
  const counts = countStates(commits);
  const linked = first !== undefined && commitHref(commitUrl, first.sha) !== null;
  return (
    <div className="bisect-range">
      <ol
        className="bisect-strip"
        aria-label={`The range's ${String(commits.length)} commits, oldest first`}
        data-testid="commit-strip"
      >
        {commits.map((commit) => (
          <li
            key={commit.sha}
            className={commitCellClass(commit.state)}
            data-state={commit.state}
            data-sha={commit.sha}
            title={commitTitle(commit)}
          >
            <CommitLink sha={commit.sha} commitUrl={commitUrl} focusable={false}>
              <span className="visually-hidden">{commitTitle(commit)}</span>
            </CommitLink>
          </li>
        ))}
      </ol>
      {first && last && (
        // The strip's label says it all, but for the ends' links to their commits.
        <p className="bisect-ends small muted" aria-hidden={linked ? undefined : true}>
          <CommitLink sha={first.sha} commitUrl={commitUrl}>
            <span className="mono" title={first.sha}>
              {shortCommit(first.sha)}
            </span>
          </CommitLink>
          <span aria-hidden="true">
            {commits.length} commit{commits.length === 1 ? "" : "s"}, oldest first
          </span>
          <CommitLink sha={last.sha} commitUrl={commitUrl}>
            <span className="mono" title={last.sha}>
              {shortCommit(last.sha)}
            </span>
          </CommitLink>
        </p>
      )}
      <ul className="bisect-legend small" aria-label="Legend">
        {(Object.keys(COMMIT_STATES) as CommitState[]).map((state) => (
          <li key={state} data-state={state} title={COMMIT_STATES[state].meaning}>
            <span className={`${commitCellClass(state)} bisect-swatch`} aria-hidden="true" />
            {COMMIT_STATES[state].text} <span className="muted">({counts[state]})</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
