import { useSearchParams } from "react-router";

import { withFilter } from "../lib/runFilters";

/**
 * A page's filters and paging, kept in the URL's search params so a filtered page can be
 * linked and reloaded: `setFilter` sets one (a blank value removes it) and goes back to the
 * first page; `setOffset` pages.
 */
export function useUrlFilters() {
  const [search, setSearch] = useSearchParams();

  function setFilter(name: string, value: string) {
    setSearch(withFilter(search, name, value));
  }

  function setOffset(offset: number) {
    const next = new URLSearchParams(search);
    if (offset > 0) next.set("offset", String(offset));
    else next.delete("offset");
    setSearch(next);
  }

  return { search, setSearch, setFilter, setOffset };
}
