import type { CommitRead } from "../../api/types";
import { formatDateTime, shortCommit } from "../../lib/format";
import { namesCommit } from "../../lib/repos";
import { hidden, TableHead } from "../common/TableHead";
import { CommitLink } from "./CommitLink";

export type Side = "base" | "head";

/**
 * A repository's recent commits, newest first, each linked to the repository's site when it
 * has a commit URL. With `pick`, each commit can be taken as a try job's base or head, or run
 * on its own.
 */
export function CommitsTable({
  commits,
  commitUrl = null,
  pick,
}: {
  commits: CommitRead[];
  commitUrl?: string | null;
  pick?: {
    base: string;
    head: string;
    onPick: (side: Side, sha: string) => void;
    onRunAt: (sha: string) => void;
  };
}) {
  return (
    <table className="table commits-table">
      <TableHead
        columns={[
          "Commit",
          "Subject",
          "Author",
          "Date",
          ...(pick ? ["Base", "Head", hidden("Actions")] : []),
        ]}
      />
      <tbody>
        {commits.map((commit) => {
          const short = shortCommit(commit.sha);
          const picked = pick && [pick.base, pick.head].some((ref) => namesCommit(ref, commit.sha));
          return (
            <tr key={commit.sha} data-sha={commit.sha} className={picked ? "picked" : undefined}>
              <td className="mono" title={commit.sha}>
                <CommitLink sha={commit.sha} commitUrl={commitUrl}>
                  {short}
                </CommitLink>
              </td>
              <td className="wrap">{commit.subject}</td>
              <td>{commit.author}</td>
              <td className="nowrap">{formatDateTime(commit.committed_at)}</td>
              {pick && (
                <>
                  {(["base", "head"] as const).map((side) => (
                    <td key={side}>
                      <input
                        type="radio"
                        name={side}
                        checked={namesCommit(pick[side], commit.sha)}
                        onChange={() => pick.onPick(side, commit.sha)}
                        aria-label={`${side === "base" ? "Base" : "Head"}: ${short}`}
                      />
                    </td>
                  ))}
                  <td>
                    <button
                      type="button"
                      className="button button-small"
                      onClick={() => pick.onRunAt(commit.sha)}
                      aria-label={`Run at ${short}`}
                    >
                      Run at this commit
                    </button>
                  </td>
                </>
              )}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
