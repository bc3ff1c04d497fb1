import { useState } from "react";
import { Link, useNavigate } from "react-router";

import { useSuites } from "../api/hosts";
import { useRuns } from "../api/runs";
import type { RunSummary } from "../api/types";
import { EmptyState } from "../components/common/Status";
import { Page } from "../components/layout/Page";
import { PagedResult } from "../components/runs/Pagination";
import { RunFilters } from "../components/runs/RunFilters";
import { RunsTable } from "../components/runs/RunsTable";
import { usePageTitle } from "../hooks/usePageTitle";
import { useUrlFilters } from "../hooks/useUrlFilters";
import { compareHref, oldestFirst, togglePick } from "../lib/compare";
import { MAX_RUNS, multiCompareHref } from "../lib/multiCompare";
import { activeFilterCount, queryFromSearch, rangeStart, type RunOrder } from "../lib/runFilters";

/** Two runs: their comparison; more: side by side, the oldest as the baseline. */
function picksHref(ids: number[]): string {
  return ids.length === 2 ? compareHref(ids[0]!, ids[1]!) : multiCompareHref(ids);
}

export function RunsPage() {
  usePageTitle("Runs");
  const { search, setFilter, setFilters, resetFilters, setOffset } = useUrlFilters();
  const query = queryFromSearch(search);
  const runs = useRuns(query);
  const suites = useSuites();
  const navigate = useNavigate();
  // Picks survive paging and filtering, so the two runs may come from different pages.
  const [picked, setPicked] = useState<RunSummary[]>([]);
  const ordered = oldestFirst(picked);
  const filtered = activeFilterCount(query) > 0;

  function setOrder(order: RunOrder) {
    setFilter("order", order === "-started_at" ? "" : order);
  }

  function range(hours: number) {
    setFilters({ since: rangeStart(hours, new Date()), until: null });
  }

  return (
    <Page
      title="Runs"
      aside={runs.isFetching && !runs.isPending && <span className="muted">Refreshing…</span>}
    >
      <RunFilters
        key={search.toString()}
        query={query}
        suites={suites.data?.map((suite) => suite.id) ?? []}
        onApply={resetFilters}
        onRange={range}
        onClear={() => resetFilters()}
      />
      <div className="compare-bar" aria-live="polite">
        {picked.length === 0 ? (
          <span className="muted">
            Pick two runs to compare them, or up to {MAX_RUNS} to see them side by side.
          </span>
        ) : (
          <>
            <span>
              Picked {ordered.map((run) => `#${String(run.id)}`).join(", ")}
              <span className="muted">
                {" "}
                ({ordered.length > 1 ? `baseline #${String(ordered[0]!.id)}, the oldest` : "one more"}
                {picked.length >= MAX_RUNS && `; at most ${String(MAX_RUNS)} runs`})
              </span>
            </span>
            <button
              type="button"
              className="button button-primary"
              disabled={ordered.length < 2}
              onClick={() => void navigate(picksHref(ordered.map((run) => run.id)))}
            >
              Compare
            </button>
            <button type="button" className="button" onClick={() => setPicked([])}>
              Clear picks
            </button>
          </>
        )}
      </div>
      <PagedResult
        query={runs}
        loading="Loading runs…"
        onOffsetChange={setOffset}
        empty={
          filtered ? (
            <EmptyState title="No runs match these filters">
              <Link to="/runs">Clear the filters</Link> to see every run.
            </EmptyState>
          ) : (
            <EmptyState title="No runs yet">
              Runs appear here when CI submits results or a job finishes.
            </EmptyState>
          )
        }
      >
        {(items) => (
          <RunsTable
            runs={items}
            picked={picked.map((run) => run.id)}
            maxPicks={MAX_RUNS}
            onTogglePick={(run) => setPicked((current) => togglePick(current, run, MAX_RUNS))}
            order={query.order ?? "-started_at"}
            onOrder={setOrder}
          />
        )}
      </PagedResult>
    </Page>
  );
}
