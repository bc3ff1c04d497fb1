import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import { keys } from "../api/keys";
import type { ProfileRead } from "../api/types";
import { readStacks, useRunProfiles } from "./useRunProfiles";

const profile = (id: number): ProfileRead => ({
  id,
  series_id: 1,
  labels: { client: "go" },
  program: "server",
  tool: "cpu",
  frequency_hz: 99,
  samples: 3,
  stacks: 1,
  folded_bytes: 20,
});

const stacks = {
  shared: { frames: ["main", "serve"].map((name) => ({ name })) },
  profiles: [{ type: "sampled", samples: [[0, 1]], weights: [3] }],
};

/** What the hook gives a page, for a run whose profiles and first stacks are already read. */
function Probe() {
  const { list, chosen, flame } = useRunProfiles(7);
  const read = flame.data;
  return (
    <p>
      {list.data?.length} profiles, #{chosen?.id}:{" "}
      {read === undefined ? "loading" : "tree" in read ? read.tree.total : read.error}
    </p>
  );
}

function render(profiles: ProfileRead[], document: unknown): string {
  const client = new QueryClient();
  client.setQueryData(keys.runs.profiles(7), profiles);
  client.setQueryData(keys.runs.profile(7, 2), document);
  return renderToStaticMarkup(
    <QueryClientProvider client={client}>
      <Probe />
    </QueryClientProvider>,
  );
}

describe("useRunProfiles", () => {
  it("chooses the first profile and reads its stacks into a flame graph's tree", () => {
    expect(render([profile(2), profile(5)], stacks)).toBe("<p>2 profiles, #2: 3</p>");
  });

  it("says why stacks of another shape cannot be drawn", () => {
    expect(render([profile(2)], { shared: {} })).toBe(
      "<p>1 profiles, #2: not a sampled speedscope profile</p>",
    );
    expect(readStacks(stacks)).toHaveProperty("tree");
  });
});
