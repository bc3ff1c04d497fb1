import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import type { CommitRead } from "../../api/types";
import { CommitsTable } from "./CommitsTable";

const commits: CommitRead[] = [
  {
    sha: "1a2b3c4d5e6f708192a3b4c5d6e7f80912a3b4c5",
    subject: "orders: validate the quantity once",
    author: "Ada",
    committed_at: "2026-11-27T09:30:00Z",
  },
  {
    sha: "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432",
    subject: "orders: first version",
    author: "Grace",
    committed_at: "2026-11-26T18:00:00Z",
  },
];

const noop = () => undefined;

describe("CommitsTable", () => {
  it("lists each commit by its short sha, subject, author and date", () => {
    const html = renderToStaticMarkup(<CommitsTable commits={commits} />);
    const text = html.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
    expect(text).toContain(
      "1a2b3c4d5e orders: validate the quantity once Ada 2026-11-27 09:30:00 UTC",
    );
    expect(text).toContain("9f8e7d6c5b orders: first version Grace 2026-11-26 18:00:00 UTC");
    // A reader picks nothing: no base, head or run controls.
    expect(html).not.toContain("<input");
    expect(html).not.toContain("Run at this commit");
  });

  it("lets a member pick base and head (a typed short sha counts) or run one commit", () => {
    const html = renderToStaticMarkup(
      <CommitsTable
        commits={commits}
        pick={{ base: "9f8e7d6", head: "main", onPick: noop, onRunAt: noop }}
      />,
    );
    const radio = (label: string) => new RegExp(`<input type="radio" aria-label="${label}"[^>]*>`);
    expect(html.match(radio("Base: 9f8e7d6c5b"))?.[0]).toContain('checked=""');
    expect(html.match(radio("Base: 1a2b3c4d5e"))?.[0]).not.toContain("checked");
    // "main" names no listed sha: no head is checked until one is picked.
    expect(html.match(radio("Head: 1a2b3c4d5e"))?.[0]).not.toContain("checked");
    expect(html).toMatch(/<tr data-sha="9f8e7d6c5b4a39281706f5e4d3c2b1a098765432" class="picked">/);
    expect(html.match(/>Run at this commit</g)).toHaveLength(2);
    expect(html).toContain('aria-label="Run at 1a2b3c4d5e"');
  });

  it("links each commit to the repository's site when it has a commit URL", () => {
    const template = "https://github.com/team/orders/commit/{sha}";
    const html = renderToStaticMarkup(<CommitsTable commits={commits} commitUrl={template} />);
    for (const commit of commits) {
      expect(html).toContain(
        `<td class="mono" title="${commit.sha}"><a class="commit-link" ` +
          `href="https://github.com/team/orders/commit/${commit.sha}" target="_blank" ` +
          `rel="noreferrer">${commit.sha.slice(0, 10)}</a></td>`,
      );
    }
    expect(renderToStaticMarkup(<CommitsTable commits={commits} />)).not.toContain("<a");
  });
});
