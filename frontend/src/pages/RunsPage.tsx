import { useSearchParams } from "react-router";

import { errorMessage } from "../api/client";
import { useRuns } from "../api/runs";
import type { RunListQuery } from "../api/types";
import { EmptyState, ErrorState, Loading } from "../components/common/Status";
import { Pagination } from "../components/runs/Pagination";
import { RunsTable } from "../components/runs/RunsTable";

const PAGE_SIZE = 50;
const FILTERS = ["suite", "scenario", "branch", "commit", "host", "since", "until"] as const;
const SOURCES = ["ci", "job", "manual"] as const;

/** Filters and paging live in the URL (?suite=echo&offset=50), so a view can be shared. */
function queryFromSearch(search: URLSearchParams): RunListQuery {
  const query: RunListQuery = {
    limit: positiveInt(search.get("limit"), PAGE_SIZE),
    offset: positiveInt(search.get("offset"), 0),
  };
  for (const name of FILTERS) {
    const value = search.get(name);
    if (value) query[name] = value;
  }
  const source = search.get("source");
  const kind = SOURCES.find((candidate) => candidate === source);
  if (kind) query.source = kind;
  return query;
}

function positiveInt(text: string | null, fallback: number): number {
  const value = Number(text);
  return text !== null && Number.isInteger(value) && value >= 0 ? value : fallback;
}

export function RunsPage() {
  const [search, setSearch] = useSearchParams();
  const query = queryFromSearch(search);
  const runs = useRuns(query);

  function setOffset(offset: number) {
    const next = new URLSearchParams(search);
    if (offset > 0) next.set("offset", String(offset));
    else next.delete("offset");
    setSearch(next);
  }

  return (
    <section>
      <header className="page-header">
        <h1>Runs</h1>
        {runs.isFetching && !runs.isPending && <span className="muted">Refreshing…</span>}
      </header>
      {runs.isPending ? (
        <Loading label="Loading runs…" />
      ) : runs.isError ? (
        <ErrorState message={errorMessage(runs.error)} onRetry={() => void runs.refetch()} />
      ) : runs.data.items.length === 0 ? (
        <EmptyState title="No runs yet">
          Runs appear here when CI submits results or a job finishes.
        </EmptyState>
      ) : (
        <>
          <div className="table-scroll">
            <RunsTable runs={runs.data.items} />
          </div>
          <Pagination
            total={runs.data.total}
            limit={runs.data.limit}
            offset={runs.data.offset}
            onOffsetChange={setOffset}
          />
        </>
      )}
    </section>
  );
}
