import { formatCount } from "../../lib/units";

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
}: {
  total: number;
  capped?: boolean;
  limit: number;
  offset: number;
  onOffsetChange: (offset: number) => void;
  label?: string;
}) {
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
