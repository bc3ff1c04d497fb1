import { useEffect } from "react";

import { pageTitle } from "../lib/format";

/** Names the browser tab after the page, so a latency engineer's tabs can be told apart. */
export function usePageTitle(title: string) {
  useEffect(() => {
    document.title = pageTitle(title);
  }, [title]);
}
