import { useState, type FormEvent } from "react";
import { Link, useNavigate, useParams } from "react-router";

import { usePermissions } from "../api/auth";
import { errorMessage } from "../api/client";
import { useCommits, useRepository } from "../api/repos";
import type { RepositoryRead } from "../api/types";
import { Field } from "../components/common/Field";
import { EmptyState, ErrorState, Loading, QueryResult } from "../components/common/Status";
import { LaunchPanel } from "../components/jobs/LaunchPanel";
import { CommitsTable, type Side } from "../components/repos/CommitsTable";
import { CommitUrlForm } from "../components/repos/CommitUrlForm";
import { LAB_REPETITIONS, TRY_REPETITIONS } from "../lib/jobs";
import type { RepoTarget } from "../lib/repos";
import { usePageTitle } from "../hooks/usePageTitle";

const REF_HINT = "A branch, tag or commit; or pick one in the list above";

/**
 * /repositories/:name: its recent commits (linked to its site when it has a commit URL, which
 * members set here), and jobs launched at them (members).
 */
export function RepositoryPage() {
  const { name = "" } = useParams();
  usePageTitle(`${name} · Repositories`);
  const repo = useRepository(name);
  return (
    <section>
      <p className="breadcrumb">
        <Link to="/repositories">Repositories</Link> / {name}
      </p>
      <QueryResult
        query={repo}
        loading="Loading the repository…"
        missing={`No repository "${name}" in this project`}
      >
        {(found) => <RepositoryBody repo={found} />}
      </QueryResult>
    </section>
  );
}

function RepositoryBody({ repo }: { repo: RepositoryRead }) {
  const { canWrite } = usePermissions();
  const navigate = useNavigate();
  const [refText, setRefText] = useState("");
  const [ref, setRef] = useState("");
  const commits = useCommits(repo.name, ref);
  const [mode, setMode] = useState<"try" | "commit">("try");
  const [refs, setRefs] = useState({ base: repo.default_branch, head: "", at: "" });

  function showRef(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setRef(refText.trim());
  }
  function pick(side: Side, sha: string) {
    setMode("try");
    setRefs((current) => ({ ...current, [side]: sha }));
  }
  function runAt(sha: string) {
    setMode("commit");
    setRefs((current) => ({ ...current, at: sha }));
    document.getElementById("launch-title")?.scrollIntoView({ block: "start" });
  }
  const target: RepoTarget =
    mode === "try"
      ? { repo: repo.name, compare: { base: refs.base, head: refs.head } }
      : { repo: repo.name, ref: refs.at };

  return (
    <>
      <header className="page-header">
        <h1>{repo.name}</h1>
      </header>
      <dl className="meta">
        <div className="meta-wide">
          <dt>URL</dt>
          <dd className="mono">{repo.url}</dd>
        </div>
        <div>
          <dt>Default branch</dt>
          <dd className="mono">{repo.default_branch}</dd>
        </div>
        <div>
          <dt>Credentials</dt>
          <dd>{repo.has_secret ? "yes (write-only)" : "none"}</dd>
        </div>
        <div>
          <dt>Build network</dt>
          <dd>{repo.build_network ? "on" : "off (loopback only)"}</dd>
        </div>
        <div className="meta-wide">
          <dt>Commit URL</dt>
          <dd className={repo.commit_url ? "mono" : undefined} data-testid="commit-url">
            {repo.commit_url ?? "none (commits are not linked)"}
          </dd>
        </div>
      </dl>

      <h2>Recent commits</h2>
      <form className="toolbar" onSubmit={showRef} aria-label="Commits of a ref">
        <label>
          Ref{" "}
          <input
            value={refText}
            placeholder={repo.default_branch}
            spellCheck={false}
            onChange={(event) => setRefText(event.target.value)}
          />
        </label>
        <button type="submit" className="button">
          Show
        </button>
        {commits.isFetching && !commits.isPending && (
          <span className="muted small">Updating…</span>
        )}
      </form>
      {commits.isPending ? (
        <Loading label="Reading the repository's commits…" />
      ) : commits.isError ? (
        <ErrorState
          title={`Could not list the commits of ${ref || repo.default_branch}`}
          message={errorMessage(commits.error)}
          onRetry={() => void commits.refetch()}
        />
      ) : commits.data.length === 0 ? (
        <EmptyState title="No commits" />
      ) : (
        <div className="table-scroll">
          <CommitsTable
            commits={commits.data}
            commitUrl={repo.commit_url}
            pick={
              canWrite
                ? { base: refs.base, head: refs.head, onPick: pick, onRunAt: runAt }
                : undefined
            }
          />
        </div>
      )}

      {canWrite && (
        <LaunchPanel
          title={mode === "try" ? "Launch a try job" : "Run at a commit"}
          onLaunched={(ids) => void navigate(`/jobs?job=${String(ids[0])}`)}
          repo={{
            target,
            repetitions: mode === "try" ? TRY_REPETITIONS : LAB_REPETITIONS,
            fields: (
              <>
                <Field
                  label="Job"
                  hint={
                    mode === "try"
                      ? "Both commits built and measured on one host, their trials interleaved"
                      : "The suite run on one commit of the repository"
                  }
                >
                  {(control) => (
                    <select
                      {...control}
                      value={mode}
                      onChange={(event) => setMode(event.target.value as "try" | "commit")}
                    >
                      <option value="try">Try job: head against base</option>
                      <option value="commit">At one commit</option>
                    </select>
                  )}
                </Field>
                {mode === "try" ? (
                  (["base", "head"] as const).map((side) => (
                    <Field key={side} label={side === "base" ? "Base" : "Head"} hint={REF_HINT}>
                      {(control) => (
                        <input
                          {...control}
                          value={refs[side]}
                          spellCheck={false}
                          onChange={(event) =>
                            setRefs((current) => ({ ...current, [side]: event.target.value }))
                          }
                        />
                      )}
                    </Field>
                  ))
                ) : (
                  <Field label="Commit" hint={REF_HINT}>
                    {(control) => (
                      <input
                        {...control}
                        value={refs.at}
                        spellCheck={false}
                        onChange={(event) =>
                          setRefs((current) => ({ ...current, at: event.target.value }))
                        }
                      />
                    )}
                  </Field>
                )}
              </>
            ),
          }}
        />
      )}
      {canWrite && <CommitUrlForm repo={repo} />}
    </>
  );
}
