import { useSearchParams } from "react-router";

import { searchOf, withFilter, withFilters, type FilterValue } from "../lib/runFilters";

/**
 * A page's filters and paging, kept in the URL's search params so a filtered page can be
 * linked and reloaded: `setFilter` sets one (a blank value removes it) and goes back to the
 * first page, `setFilters` several (null removes one; `replace` keeps the history entry, for a
 * change of the same view), `resetFilters` sets only those given (none: clears them all);
 * `setOffset` pages.
 */
export function useUrlFilters() {
  const [search, setSearch] = useSearchParams();

  function setFilter(name: string, value: string) {
    setSearch(withFilter(search, name, value));
  }

  function setFilters(values: Record<string, FilterValue>, options?: { replace?: boolean }) {
    setSearch(withFilters(search, values), options);
  }

  function resetFilters(values: Record<string, FilterValue> = {}) {
    setSearch(searchOf(values));
  }

  function setOffset(offset: number) {
    const next = new URLSearchParams(search);
    if (offset > 0) next.set("offset", String(offset));
    else next.delete("offset");
    setSearch(next);
  }

  return { search, setFilter, setFilters, resetFilters, setOffset };
}
