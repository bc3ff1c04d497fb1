import { renderToStaticMarkup } from "react-dom/server";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";

import type { BisectionRead } from "../../api/types";
import { tryCompareHref, tryProfilesHref } from "../../lib/tries";
import { BisectionResult } from "./BisectionResult";

const sha = (digit: string) => digit.repeat(40);

const first = {
  sha: sha("2"),
  subject: "order: check stock",
  author: "Order Team",
  change: 0.2,
  interval: [0.18, 0.22],
  share: 0.62,
  run_id: 22,
};
const second = {
  sha: sha("5"),
  subject: "order: log each line",
  author: "Bo",
  change: 0.1,
  interval: [0.09, 0.11],
  share: 0.31,
  run_id: 25,
};

const found = {
  id: 4,
  repo: "orders",
  good: sha("0"),
  bad: sha("6"),
  metric: "p99",
  status: "found",
  commits: [],
  steps: [],
  result: { culprit: first, culprits: [first, second] },
  message: "culprits: ...",
} as unknown as BisectionRead;

function render(bisection: BisectionRead): string {
  return renderToStaticMarkup(
    <MemoryRouter>
      <BisectionResult bisection={bisection} />
    </MemoryRouter>,
  );
}

/** The text of each element with data-testid `testid` (no nested elements of the same tag). */
function texts(html: string, testid: string): string[] {
  const element = new RegExp(`<(\\w+)[^>]*data-testid="${testid}"[^>]*>(.*?)</\\1>`, "g");
  const found = html.matchAll(element);
  return [...found].map((match) => (match[2] ?? "").replace(/<[^>]+>/g, ""));
}

describe("BisectionResult", () => {
  it("names every culprit, in the order found, each with its change and its measurement", () => {
    const html = render(found);
    expect(html).toContain(">Culprits (2)</h2>");
    expect(html.match(/data-testid="culprit"/g)).toHaveLength(2);
    expect(texts(html, "culprit-sha")).toEqual(["2222222222", "5555555555"]);
    expect(html).toContain(`title="${sha("2")}" data-testid="culprit-sha"`);
    expect(html).toContain(`title="${sha("5")}" data-testid="culprit-sha"`);
    expect(texts(html, "culprit-change")).toEqual([
      "p99 +20% (+18% to +22%) measured beside its parent: 62% of the whole change.",
      "p99 +10% (+9% to +11%) measured beside its parent: 31% of the whole change.",
    ]);
    expect(html.indexOf("order: check stock")).toBeLessThan(html.indexOf("order: log each line"));
    expect(html).toContain(" (Bo)");
    for (const runId of [22, 25]) {
      expect(html).toContain(`href="${tryCompareHref(runId).replace(/&/g, "&amp;")}"`);
      expect(html).toMatch(new RegExp(`href="/runs/${String(runId)}"[^>]*>Run #${String(runId)}<`));
    }
    expect(html.match(/>Compare with its parent</g)).toHaveLength(2);
    expect(texts(html, "culprits-together")).toEqual(["Together 93% of the whole change."]);
  });

  it("sums the shares only when every one is known", () => {
    const unknown = { ...second, share: null, run_id: null };
    const html = render({ ...found, result: { culprit: first, culprits: [first, unknown] } });
    expect(html).toContain(">Culprits (2)</h2>");
    expect(html).not.toContain("culprits-together");
    expect(html).not.toContain("Together");
    expect(texts(html, "culprit-change")[1]).toBe(
      "p99 +10% (+9% to +11%) measured beside its parent.",
    );
    expect(html.match(/>Compare with its parent</g)).toHaveLength(1);
    expect(html.match(/>Flame graph vs its parent</g)).toHaveLength(1);
  });

  it("names a single culprit under \"Culprit\", without a sum", () => {
    for (const result of [{ culprit: first, culprits: [first] }, { culprit: first }]) {
      const html = render({ ...found, result });
      expect(html).toContain(">Culprit</h2>");
      expect(html.match(/data-testid="culprit"/g)).toHaveLength(1);
      expect(texts(html, "culprit-sha")).toEqual(["2222222222"]);
      expect(html).not.toContain("Together");
    }
  });

  it("gives each culprit measured its differential flame graph against its parent", () => {
    const html = render(found);
    for (const runId of [22, 25]) {
      const href = tryProfilesHref(runId).replace(/&/g, "&amp;");
      expect(html).toContain(`href="${href}" data-discover="true">Flame graph vs its parent<`);
    }
  });

  it("links each culprit's sha to its commit when the repository has a commit URL", () => {
    const linked = render({ ...found, commit_url: "https://github.com/team/orders/commit/{sha}" });
    for (const digit of ["2", "5"]) {
      expect(linked).toContain(
        `<a class="commit-link" href="https://github.com/team/orders/commit/${sha(digit)}" ` +
          `target="_blank" rel="noreferrer"><code title="${sha(digit)}" data-testid="culprit-sha">` +
          `${digit.repeat(10)}</code></a>`,
      );
    }
    expect(texts(linked, "culprit-sha")).toEqual(["2222222222", "5555555555"]);
    // Without one, the sha is shown as before, linked to nothing.
    const plain = render({ ...found, commit_url: null });
    expect(plain).not.toContain("commit-link");
    expect(plain).toContain(`<code title="${sha("2")}" data-testid="culprit-sha">2222222222</code>`);
  });

  it("links the commits of a narrowed range likewise", () => {
    const narrowed = {
      ...found,
      status: "narrowed",
      result: { range: [sha("2"), sha("3")] },
      commit_url: "https://git.example.com/orders/-/commit/{sha}",
    } as BisectionRead;
    const html = render(narrowed);
    expect(html).toContain(`href="https://git.example.com/orders/-/commit/${sha("3")}"`);
  });
});
