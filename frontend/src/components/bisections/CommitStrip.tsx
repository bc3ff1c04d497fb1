import type { BisectionCommit, CommitState } from "../../api/types";
import { COMMIT_STATES, commitCellClass, commitTitle, countStates } from "../../lib/bisections";
import { shortCommit } from "../../lib/format";

/**
 * A bisection's range as a strip, one cell per commit, oldest (good) on the left, coloured by
 * what the search knows of it; each cell names its commit on hover (and to screen readers),
 * the culprit is marked, and a legend counts each state.
 */
export function CommitStrip({ commits }: { commits: BisectionCommit[] }) {
  const first = commits[0];
  const last = commits[commits.length - 1];
  const counts = countStates(commits);
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
            <span className="visually-hidden">{commitTitle(commit)}</span>
          </li>
        ))}
      </ol>
      {first && last && (
        <p className="bisect-ends small muted" aria-hidden="true">
          <span className="mono">{shortCommit(first.sha)}</span>
          <span>
            {commits.length} commit{commits.length === 1 ? "" : "s"}, oldest first
          </span>
          <span className="mono">{shortCommit(last.sha)}</span>
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
