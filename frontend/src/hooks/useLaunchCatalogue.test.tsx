import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import { keys } from "../api/keys";
import { useLaunchCatalogue } from "./useLaunchCatalogue";

function Probe({ enabled }: { enabled: boolean }) {
  const { suites, knownTags } = useLaunchCatalogue(enabled);
  return (
    <p>
      {suites.isPending ? "pending" : suites.data?.length} suites; {knownTags.join(" ")}
    </p>
  );
}

describe("useLaunchCatalogue", () => {
  it("gives the suites and the tags the hosts have, read only when the user may launch", () => {
    const render = (client: QueryClient, enabled: boolean) =>
      renderToStaticMarkup(
        <QueryClientProvider client={client}>
          <Probe enabled={enabled} />
        </QueryClientProvider>,
      );
    const read = new QueryClient();
    read.setQueryData(keys.hosts.suites(), [{ id: "echo" }]);
    read.setQueryData(keys.hosts.list(), [{ tags: ["x86", "tuned"] }, { tags: ["x86"] }]);
    expect(render(read, true)).toBe("<p>1 suites; tuned x86</p>");
    expect(render(new QueryClient(), false)).toBe("<p>pending suites; </p>");
  });
});
