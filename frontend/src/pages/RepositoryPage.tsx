import { useState, type FormEvent } from "react";
import { Link, useNavigate, useParams } from "react-router";

import { usePermissions } from "../api/auth";
import { useCommits, useRepository } from "../api/repos";
import type { RepositoryRead } from "../api/types";
import { SelectField, TextField } from "../components/common/Field";
import { MetaItem } from "../components/common/Meta";
import { EmptyState, QueryResult } from "../components/common/Status";
import { LaunchPanel } from "../components/jobs/LaunchPanel";
import { CommitsTable, type Side } from "../components/repos/CommitsTable";
import { CommitUrlForm } from "../components/repos/CommitUrlForm";
import { useLaunchCatalogue } from "../hooks/useLaunchCatalogue";
import { usePageTitle } from "../hooks/usePageTitle";
import { LAB_REPETITIONS, TRY_REPETITIONS } from "../lib/jobs";
import type { RepoTarget } from "../lib/repos";

const REF_HINT = "A branch, tag or commit; or pick one in the list above";
const REF_LABELS = { base: "Base", head: "Head", at: "Commit" };
const MODES = [
  { value: "try", text: "Try job: head against base" },
  { value: "commit", text: "At one commit" },
];

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
  const catalogue = useLaunchCatalogue(canWrite);
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
        <MetaItem term="URL" wide className="mono">{repo.url}</MetaItem>
        <MetaItem term="Default branch" className="mono">{repo.default_branch}</MetaItem>
        <MetaItem term="Credentials">{repo.has_secret ? "yes (write-only)" : "none"}</MetaItem>
        <MetaItem term="Build network">
          {repo.build_network ? "on" : "off (loopback only)"}
        </MetaItem>
        <MetaItem
          term="Commit URL"
          wide
          className={repo.commit_url ? "mono" : undefined}
          testId="commit-url"
        >
          {repo.commit_url ?? "none (commits are not linked)"}
        </MetaItem>
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
      <QueryResult
        query={commits}
        loading="Reading the repository's commits…"
        title={`Could not list the commits of ${ref || repo.default_branch}`}
        isEmpty={(data) => data.length === 0}
        empty={<EmptyState title="No commits" />}
      >
        {(data) => (
          <div className="table-scroll">
            <CommitsTable
              commits={data}
              commitUrl={repo.commit_url}
              pick={
                canWrite
                  ? { base: refs.base, head: refs.head, onPick: pick, onRunAt: runAt }
                  : undefined
              }
            />
          </div>
        )}
      </QueryResult>

      {canWrite && (
        <LaunchPanel
          catalogue={catalogue}
          title={mode === "try" ? "Launch a try job" : "Run at a commit"}
          onLaunched={(ids) => void navigate(`/jobs?job=${String(ids[0])}`)}
          repo={{
            target,
            repetitions: mode === "try" ? TRY_REPETITIONS : LAB_REPETITIONS,
            fields: (
              <>
                <SelectField
                  label="Job"
                  hint={
                    mode === "try"
                      ? "Both commits built and measured on one host, their trials interleaved"
                      : "The suite run on one commit of the repository"
                  }
                  value={mode}
                  options={MODES}
                  onChange={setMode}
                />
                {(mode === "try" ? (["base", "head"] as const) : (["at"] as const)).map((side) => (
                  <TextField
                    key={side}
                    label={REF_LABELS[side]}
                    hint={REF_HINT}
                    value={refs[side]}
                    spellCheck={false}
                    onChange={(value) => setRefs((current) => ({ ...current, [side]: value }))}
                  />
                ))}
              </>
            ),
          }}
        />
      )}
      {canWrite && <CommitUrlForm repo={repo} />}
    </>
  );
}
