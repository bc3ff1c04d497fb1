import { renderToStaticMarkup } from "react-dom/server";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";

import type { BisectionRead } from "../../api/types";
import { tryCompareHref } from "../../lib/tries";
import { BisectionResult } from "./BisectionResult";
import { CommitStrip } from "./CommitStrip";
import { StepsTable } from "./StepsTable";

const sha = (digit: string) => digit.repeat(40);

const found: BisectionRead = {
  id: 3,
  repo: "orders",
  commit_url: null,
  good: sha("0"),
  bad: sha("3"),
  suite: "http-order",
  scenario: "steady",
  params: { server: "repo" },
  series: { client: "go" },
  metric: "p99",
  status: "found",
  commits: [
    { sha: sha("0"), subject: "v1.0", author: "Ann", state: "good" },
    { sha: sha("1"), subject: "order: log", author: "Ann", state: "unbuildable" },
    { sha: sha("2"), subject: "order: check stock", author: "Order Team", state: "culprit" },
    { sha: sha("3"), subject: "main", author: "Bo", state: "bad" },
  ],
  steps: [
    {
      kind: "ends",
      base: sha("0"),
      head: sha("3"),
      job_id: 10,
      run_id: 20,
      outcome: "regressed",
      change: 0.32,
      interval: [0.3, 0.34],
      detectable: 0.04,
      minutes: 3.5,
      said: "rose 32 %",
    },
    {
      kind: "search",
      base: sha("0"),
      head: sha("1"),
      job_id: 11,
      run_id: null,
      outcome: "unbuildable",
      minutes: 0.5,
      said: "building orders at 1111111111 failed",
    },
    {
      kind: "culprit",
      base: sha("0"),
      head: sha("2"),
      job_id: 12,
      run_id: 22,
      outcome: "regressed",
      change: 0.3,
      interval: [0.281, 0.319],
      minutes: 4,
      said: "rose 30 %",
    },
  ],
  result: {
    culprit: {
      sha: sha("2"),
      subject: "order: check stock",
      author: "Order Team",
      change: 0.3,
      interval: [0.281, 0.319],
      share: 0.94,
      run_id: 22,
    },
  },
  message: "culprit: 2222222222 order: check stock (Order Team), +30.0 % p99",
  max_minutes: null,
  created_at: "2026-11-28T02:00:00Z",
  finished_at: "2026-11-28T02:10:00Z",
};

function render(node: React.ReactNode): string {
  return renderToStaticMarkup(<MemoryRouter>{node}</MemoryRouter>);
}

describe("a bisection's page parts", () => {
  it("draws the range as a strip, one titled cell per commit in its state, with a legend", () => {
    const html = render(<CommitStrip commits={found.commits} />);
    const cells = [...html.matchAll(/<li class="bisect-cell [^"]*" data-state="(\w+)"/g)];
    expect(cells.map((cell) => cell[1])).toEqual(["good", "unbuildable", "culprit", "bad"]);
    expect(html).toContain('title="2222222222 order: check stock (Order Team): culprit"');
    expect(html).toContain('aria-label="Legend"');
    expect(html).toMatch(/culprit <span class="muted">\(1\)<\/span>/);
    expect(html).not.toContain("<a");
    expect(html).toContain('<p class="bisect-ends small muted" aria-hidden="true">');
  });

  it("links each cell and each end of the strip to its commit with a commit URL", () => {
    const template = "https://github.com/team/orders/commit/{sha}";
    const html = render(<CommitStrip commits={found.commits} commitUrl={template} />);
    const link = (digit: string) => `https://github.com/team/orders/commit/${sha(digit)}`;
    // Each cell is a link, but not a tab stop (a range has up to a thousand commits).
    const cells = [...html.matchAll(/<li class="bisect-cell [^>]*><a ([^>]*)>/g)];
    expect(cells.map((cell) => cell[1])).toEqual(
      ["0", "1", "2", "3"].map(
        (digit) =>
          `class="commit-link" href="${link(digit)}" target="_blank" rel="noreferrer" tabindex="-1"`,
      ),
    );
    // The ends are links a keyboard reaches, shown to assistive technology.
    expect(html).toContain('<p class="bisect-ends small muted">');
    for (const digit of ["0", "3"]) {
      expect(html).toContain(
        `<a class="commit-link" href="${link(digit)}" target="_blank" rel="noreferrer">` +
          `<span class="mono" title="${sha(digit)}">${digit.repeat(10)}</span></a>`,
      );
    }
  });

  it("links the steps' commits with a commit URL", () => {
    const template = "https://github.com/team/orders/commit/{sha}";
    const html = render(<StepsTable steps={found.steps} running={false} commitUrl={template} />);
    expect(html.match(/class="commit-link"/g)).toHaveLength(6);
    expect(html).toContain(`href="https://github.com/team/orders/commit/${sha("2")}"`);
    expect(render(<StepsTable steps={found.steps} running={false} />)).not.toContain(
      "commit-link",
    );
  });

  it("lists the steps with their outcome, change, job and run", () => {
    const html = render(<StepsTable steps={found.steps} running={false} />);
    expect(html.match(/<tr data-step=/g)).toHaveLength(3);
    expect(html).toContain('data-kind="search" data-outcome="unbuildable"');
    expect(html).toContain(">does not build<");
    expect(html).toContain("+30% (+28.1% to +31.9%)");
    expect(html).toContain('href="/jobs?job=12"');
    expect(html).toContain('href="/runs/22"');
  });

  it("says the last step of a running bisection is being measured", () => {
    const steps = [{ kind: "ends" as const, base: sha("0"), head: sha("3"), job_id: 10 }];
    expect(render(<StepsTable steps={steps} running />)).toContain(">measuring…<");
    expect(render(<StepsTable steps={steps} running={false} />)).toContain(">not measured<");
  });

  it("names the culprit with its change and the comparison with its parent", () => {
    const html = render(<BisectionResult bisection={found} />);
    expect(html).toContain(`title="${sha("2")}"`);
    expect(html).toContain("p99 +30% (+28.1% to +31.9%) measured beside its parent: 94% of");
    expect(html).toContain(`href="${tryCompareHref(22).replace(/&/g, "&amp;")}"`);
    expect(html).toContain(">Compare with its parent<");
  });

  it("lists the commits a narrowed bisection left", () => {
    const narrowed = {
      ...found,
      status: "narrowed" as const,
      result: { range: [sha("2"), sha("3")] },
    };
    const html = render(<BisectionResult bisection={narrowed} />);
    expect(html).toContain("Narrowed to 2 commits");
    expect(html).toContain("order: check stock");
    expect(render(<BisectionResult bisection={{ ...found, result: null }} />)).toBe("");
  });
});
