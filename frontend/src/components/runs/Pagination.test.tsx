import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import type { QueryState } from "../../api/hooks";
import { PagedResult } from "./Pagination";

type Page = { items: string[]; total: number; limit?: number; offset?: number };

function render(data: Page, pages: { limit?: number; offset?: number } = {}): string {
  const query: QueryState<Page> = { isPending: false, error: null, data };
  return renderToStaticMarkup(
    <PagedResult query={query} loading="Loading…" empty={<p>none</p>} onOffsetChange={() => {}} {...pages}>
      {(items) => <table aria-label={items.join(" ")} />}
    </PagedResult>,
  );
}

describe("PagedResult", () => {
  it("shows the page's items in a scrolling table, its pages under it", () => {
    const html = render({ items: ["a", "b"], total: 120, limit: 50, offset: 50 });
    expect(html).toMatch(/^<div class="table-scroll"><table aria-label="a b"><\/table><\/div>/);
    expect(html).toContain("<span>51–100 of 120</span>");
  });

  it("pages as it is told when the answer does not say, and says when there is nothing", () => {
    expect(render({ items: ["a"], total: 3 }, { limit: 1, offset: 2 })).toContain("3–3 of 3");
    expect(render({ items: [], total: 0 })).toBe("<p>none</p>");
  });
});
