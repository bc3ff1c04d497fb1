import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import { ApiError } from "../../api/client";
import type { QueryState } from "../../api/hooks";
import { EmptyState, QueryResult } from "./Status";

const query = (state: Partial<QueryState<string[]>>): QueryState<string[]> => ({
  isPending: false,
  error: null,
  data: undefined,
  ...state,
});

function render(state: Partial<QueryState<string[]>>, props: object = {}): string {
  return renderToStaticMarkup(
    <QueryResult
      query={query(state)}
      loading="Loading runs…"
      isEmpty={(items) => items.length === 0}
      empty={<EmptyState title="No runs yet" />}
      {...props}
    >
      {(items) => <p>{items.join(", ")}</p>}
    </QueryResult>,
  );
}

describe("QueryResult", () => {
  it("says it is loading, or nothing when told to", () => {
    expect(render({ isPending: true })).toContain(">Loading runs…</p>");
    expect(render({ isPending: true }, { loading: null })).toBe("");
  });

  it("shows the data, or what stands for none", () => {
    expect(render({ data: ["#1", "#2"] })).toBe("<p>#1, #2</p>");
    expect(render({ data: [] })).toContain("No runs yet");
  });

  it("says the thing asked for is missing, in its words or the page's", () => {
    const missing = new ApiError(404, { detail: "no run 7" });
    expect(render({ error: missing }, { missing: "Run #7 does not exist" })).toContain(
      "<strong>Run #7 does not exist</strong><p>no run 7</p>",
    );
    expect(render({ error: missing }, { missing: <p>gone</p> })).toBe("<p>gone</p>");
    const gone = { error: new ApiError(410, {}) };
    expect(render(gone, { missing: "Gone", missingStatuses: [410] })).toContain("status-empty");
    expect(render({ error: missing })).toContain("status-error");
  });

  it("shows another failure titled, with a retry when the query can be asked again", () => {
    const failed = { error: new ApiError(500, { detail: "down" }) };
    expect(render(failed)).toContain("<strong>Could not load this page</strong><p>down</p>");
    expect(render(failed)).not.toContain("Try again");
    const retried = render({ ...failed, refetch: () => undefined }, { title: "Could not compare" });
    expect(retried).toMatch(/Could not compare.*Try again/);
    const framed = render(failed, { errorFrame: (state: unknown) => <main>{state as never}</main> });
    expect(framed).toMatch(/^<main><div class="status status-error"/);
  });
});
