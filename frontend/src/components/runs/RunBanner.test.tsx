import { renderToStaticMarkup } from "react-dom/server";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";

import type { RunContext, RunRead } from "../../api/types";
import { RunBanner } from "./RunBanner";

const run = {
  id: 42,
  series: [],
  verdict: "fail",
  verdict_reasons: [],
  metric_info: {},
  harness: null,
  errors_expected: false,
} as unknown as RunRead;

type Alert = RunContext["alerts"][number];

const alert = (id: number, bisection: Alert["bisection"]): Alert => ({
  id,
  severity: "critical",
  state: "open",
  metric: "p99",
  message: `p99 rose (alert ${String(id)})`,
  bisection,
});

function render(alerts: Alert[]): string {
  return renderToStaticMarkup(
    <MemoryRouter>
      <RunBanner run={run} tuning={[]} alerts={alerts} />
    </MemoryRouter>,
  );
}

/** Each alert's list item, tags dropped. */
function items(html: string): string[] {
  const list = /<ul[^>]*aria-label="Alerts this run opened"[^>]*>(.*?)<\/ul>/.exec(html)?.[1] ?? "";
  return [...list.matchAll(/<li>(.*?)<\/li>/g)].map((item) =>
    (item[1] ?? "").replace(/<[^>]+>/g, ""),
  );
}

describe("RunBanner's alerts", () => {
  const message =
    "culprit: 0e2d102927 commit 3: spin (Ann), +511.8 % p99 [+480 % to +540 %], " +
    "measured side by side";

  it("links each alert's bisection, saying it searches or how it ended", () => {
    const html = render([
      alert(1, { id: 7, status: "running", message: null }),
      alert(2, { id: 8, status: "found", message }),
      alert(3, null),
    ]);
    expect(html.match(/data-testid="alert-bisection"/g)).toHaveLength(2);
    expect(html).toMatch(/<a href="\/bisections\/7"[^>]*>Bisection #7<\/a>/);
    expect(html).toMatch(/<a href="\/bisections\/8"[^>]*>Bisection #8<\/a>/);
    expect(items(html)).toEqual([
      "critical alert #1 (open): p99 rose (alert 1)Bisection #7: searching for the commit",
      `critical alert #2 (open): p99 rose (alert 2)Bisection #8: ${message}`,
      "critical alert #3 (open): p99 rose (alert 3)",
    ]);
  });

  it("says a bisection's status when it ended without a message", () => {
    const html = render([alert(1, { id: 9, status: "not-reproduced", message: null })]);
    expect(items(html)).toEqual([
      "critical alert #1 (open): p99 rose (alert 1)Bisection #9: not reproduced",
    ]);
  });

  it("shows no bisection line without alerts", () => {
    expect(render([])).not.toContain("alert-bisection");
  });
});
