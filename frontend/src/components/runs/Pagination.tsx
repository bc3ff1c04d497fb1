import type { ReactNode } from "react";

import type { QueryState } from "../../api/hooks";
import { formatCount } from "../../lib/units";
import { QueryResult } from "../common/Status";

interface Pages {
  total: number;
  capped?: boolean;
  limit: number;
  offset: number;
  onOffsetChange: (offset: number) => void;
  label?: string;
}

/**
 * Pages of a list; `capped` when the API counted only up to `total` and there are more;
 * `label` names the list's pages where a page has several lists.
 */
export function Pagination({
  total,
  capped = false,
  limit,
  offset,
  onOffsetChange,
  label = "Pagination",
}: Pages) {
  const first = total === 0 ? 0 : offset + 1;
  const last = Math.min(offset + limit, total);
  return (
    <nav className="pagination" aria-label={label}>
      <span>
        {formatCount(first)}–{formatCount(last)} of {formatCount(total)}
        {capped ? "+" : ""}
      </span>
      <button
        type="button"
        className="button"
        disabled={offset === 0}
        onClick={() => onOffsetChange(Math.max(0, offset - limit))}
      >
        Previous
      </button>
      <button
        type="button"
        className="button"
        disabled={offset + limit >= total && !capped}
        onClick={() => onOffsetChange(offset + limit)}
      >
        Next
      </button>
    </nav>
  );
}

/** A page of a list as a table (scrolled sideways when wide), the pages under it. */
export function PagedTable({ children, ...pages }: Pages & { children: ReactNode }) {
  return (
    <>
      <div className="table-scroll">{children}</div>
      <Pagination {...pages} />
    </>
  );
}

/** A page of a list as the API answers it: its items, and how many there are (`total_capped`:
 * at least that many). */
interface ListPage<Item> {
  items: Item[];
  total: number;
  total_capped?: boolean;
  limit?: number;
  offset?: number;
}

/**
 * A query of a page of a list: its state (`empty` when it has no items), else its items as a
 * table (`children`), the pages under it; at `offset`, `limit` items a page (the page's own
 * when not given).
 */
export function PagedResult<Item>({
  query,
  loading,
  empty,
  limit,
  offset,
  onOffsetChange,
  children,
}: {
  query: QueryState<ListPage<Item>>;
  loading: string;
  empty: ReactNode;
  limit?: number;
  offset?: number;
  onOffsetChange: (offset: number) => void;
  children: (items: Item[]) => ReactNode;
}) {
  return (
    <QueryResult
      query={query}
      loading={loading}
      isEmpty={(page) => page.items.length === 0}
      empty={empty}
    >
      {(page) => (
        <PagedTable
          total={page.total}
          capped={page.total_capped}
          limit={limit ?? page.limit ?? page.items.length}
          offset={offset ?? page.offset ?? 0}
          onOffsetChange={onOffsetChange}
        >
          {children(page.items)}
        </PagedTable>
      )}
    </QueryResult>
  );
}
