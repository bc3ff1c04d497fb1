import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import type { RepositoryRead } from "../../api/types";
import { CommitUrlForm } from "./CommitUrlForm";

const repo: RepositoryRead = {
  id: 1,
  name: "orders",
  url: "https://github.com/team/orders.git",
  default_branch: "main",
  has_secret: false,
  build_network: false,
  commit_url: "https://github.com/team/orders/commit/{sha}",
  created_at: "2026-11-27T09:30:00Z",
};

function render(read: RepositoryRead): string {
  return renderToStaticMarkup(
    <QueryClientProvider client={new QueryClient()}>
      <CommitUrlForm repo={read} />
    </QueryClientProvider>,
  );
}

describe("CommitUrlForm", () => {
  it("shows the commit URL to change, and a way to remove it", () => {
    const html = render(repo);
    expect(html).toContain('aria-labelledby="commit-url-title"');
    expect(html).toMatch(/<label for="[^"]+">Commit URL<\/label>/);
    expect(html).toMatch(/<input [^>]*value="https:\/\/github.com\/team\/orders\/commit\/\{sha\}"/);
    expect(html).toContain(">Save</button>");
    expect(html).toContain(">Remove</button>");
  });

  it("offers none to remove when the repository has none", () => {
    const html = render({ ...repo, commit_url: null });
    expect(html).toMatch(/<input [^>]*value=""/);
    expect(html).not.toContain(">Remove</button>");
  });
});
