import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import { RepositoryForm } from "./RepositoryForm";

describe("RepositoryForm", () => {
  it("asks for a name, URL, default branch, a write-only secret and the build network", () => {
    const html = renderToStaticMarkup(
      <QueryClientProvider client={new QueryClient()}>
        <RepositoryForm />
      </QueryClientProvider>,
    );
    expect(html).toContain('aria-labelledby="new-repository"');
    expect(html).toContain(">Register a repository<");
    for (const label of ["Name", "URL", "Default branch", "Secret", "Commit URL"]) {
      expect(html).toMatch(new RegExp(`<label for="[^"]+">${label}</label>`));
    }
    expect(html).toMatch(/<input[^>]*value="main"/);
    // The secret is typed unseen, and nothing offers to remember it.
    expect(html).toMatch(/<input[^>]*type="password"[^>]*autoComplete="new-password"/);
    expect(html).toMatch(/<input type="checkbox"\/>Its build may use the network/);
    // The commit URL is optional: where the dashboard links a commit, {sha} standing for it.
    expect(html).toMatch(
      /<input [^>]*placeholder="https:\/\/github.com\/team\/orders\/commit\/\{sha\}"[^>]*value=""/,
    );
    expect(html).toContain(">Register</button>");
  });
});
