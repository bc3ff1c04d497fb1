import type { UseQueryResult } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";

import { combined } from "./hooks";

function result(state: Partial<UseQueryResult<number>>): UseQueryResult<number> {
  return { isPending: false, error: null, data: undefined, ...state } as UseQueryResult<number>;
}

describe("combined", () => {
  it("is pending while one query is, and has no error until one failed", () => {
    const results = [result({ data: 1 }), result({ isPending: true })];
    expect(combined(results, [1])).toEqual({ data: [1], isPending: true, error: null });
  });

  it("says the first failure", () => {
    const first = new Error("first");
    const results = [result({ data: 1 }), result({ error: first }), result({ error: new Error() })];
    expect(combined(results, []).error).toBe(first);
    expect(combined(results, []).isPending).toBe(false);
  });
});
