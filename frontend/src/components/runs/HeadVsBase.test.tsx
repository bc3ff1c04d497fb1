import { renderToStaticMarkup } from "react-dom/server";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";

import type { RunRead, VerdictReason } from "../../api/types";
import { tryCompareHref } from "../../lib/tries";
import { HeadVsBase } from "./HeadVsBase";
import { RunBanner } from "./RunBanner";
import { RunMeta } from "./RunMeta";
import { VerdictReasons } from "./VerdictReasons";

const HEAD = "1a2b3c4d5e6f708192a3b4c5d6e7f80912a3b4c5";
const BASE = "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432";
const METRICS = {
  p99: { name: "p99", label: "P99", unit: "ns", direction: "lower" },
  throughput: { name: "throughput", label: "throughput", unit: "req/s", direction: "higher" },
} as RunRead["metric_info"];

const regressed: VerdictReason = {
  kind: "regression",
  series: { side: "head", client: "python" },
  metric: "p99",
  message: "rose 6.1 % (head 1.167 vs base 1.1 ms); this job could see a change of 4.1 % or more",
  baseline: 1_100_000,
  candidate: 1_167_100,
  p_value: 0.002,
  outcome: "regressed",
  interval: [0.032, 0.089],
  detectable: 0.041,
};
const unchanged: VerdictReason = {
  kind: "try",
  series: { side: "head", client: "python" },
  metric: "throughput",
  message: "no significant change",
  baseline: 5000,
  candidate: 5010,
  p_value: 0.6,
  outcome: "unchanged",
  interval: [-0.01, 0.014],
  detectable: 0.03,
};

function render(node: React.ReactNode): string {
  return renderToStaticMarkup(<MemoryRouter>{node}</MemoryRouter>);
}

/** The text of the table row whose data-metric is `metric`, tags dropped. */
function row(html: string, metric: string): string {
  const found = new RegExp(`<tr[^>]*data-metric="${metric}"[^>]*>(.*?)</tr>`).exec(html);
  return (found?.[1] ?? "").replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim();
}

const run = {
  id: 42,
  project: "default",
  suite: "http-order",
  scenario: "small",
  host_name: "lab-try",
  host_tags: [],
  job_id: 7,
  params: {},
  harness: null,
  started_at: "2026-11-27T10:00:00Z",
  finished_at: "2026-11-27T10:02:00Z",
  source: {
    kind: "job",
    repo: "orders",
    commit: HEAD,
    branch: null,
    build_url: null,
    pull_request: null,
    start_point: null,
  },
  series: [],
  verdict: "fail",
  verdict_reasons: [regressed, unchanged],
  metric_info: METRICS,
} as unknown as RunRead;

describe("VerdictReasons", () => {
  it("reads a try job's reasons: outcome, change, interval, the change it could see", () => {
    const html = render(<VerdictReasons reasons={[regressed, unchanged]} metricInfo={METRICS} />);
    expect(html).toContain("95 % interval");
    expect(row(html, "p99")).toBe(
      "regression side=head, client=python P99 regressed +6.1% +3.2% to +8.9% 4.1% " +
        regressed.message,
    );
    expect(row(html, "throughput")).toBe(
      "head vs base side=head, client=python throughput unchanged +0.2% −1% to +1.4% 3% " +
        "no significant change",
    );
    expect(html).toMatch(/badge-bad">regressed/);
    expect(html).toMatch(/badge-neutral">unchanged/);
  });

  it("keeps a gate's reasons as they were, without a try job's columns", () => {
    const sla: VerdictReason = {
      kind: "sla",
      series: { client: "rust" },
      metric: "p99",
      message: "p99 2.4 ms > 2 ms",
      rule_id: 3,
      severity: "critical",
    };
    const html = render(<VerdictReasons reasons={[sla]} metricInfo={METRICS} />);
    expect(html).not.toContain("95 % interval");
    expect(row(html, "p99")).toBe("SLA · critical client=rust P99 p99 2.4 ms &gt; 2 ms rule #3");
  });
});

describe("HeadVsBase", () => {
  it("names both commits, lists every reason and links the comparison of the two sides", () => {
    const job = { ref: "main", base: { ref: "v1.0", commit: BASE } };
    const html = render(<HeadVsBase run={run} job={job} />);
    const text = html.replace(/<[^>]+>/g, "");
    expect(text).toContain(
      "orders: head main (1a2b3c4d5e) against base v1.0 (9f8e7d6c5b), both built and measured " +
        "on lab-try",
    );
    expect(html).toContain('href="/repositories/orders"');
    expect(html).toContain(`href="${tryCompareHref(42).replace(/&/g, "&amp;")}"`);
    expect(html).toContain(">Compare head with base<");
    expect(row(html, "p99")).toContain("regressed");
    expect(row(html, "throughput")).toContain("unchanged");
  });

  it("waits for the job to name the base", () => {
    const text = render(<HeadVsBase run={run} job={undefined} />).replace(/<[^>]+>/g, "");
    expect(text).toContain("orders: head 1a2b3c4d5e against base —,");
  });
});

describe("RunMeta", () => {
  it("shows the repository with the commit it measured", () => {
    const html = render(<RunMeta run={run} />);
    expect(html.replace(/<[^>]+>/g, "")).toContain(`Commitorders @ ${HEAD}`);
    expect(html).toMatch(/<dd class="mono"><a href="\/repositories\/orders"/);
  });
});

describe("RunBanner", () => {
  it("says what head did against base on each metric", () => {
    const text = render(<RunBanner run={run} tuning={[]} alerts={[]} />).replace(/<[^>]+>/g, "");
    expect(text).toContain(
      "Failed its CI gate: P99 of side=head, client=python (regressed); throughput of " +
        "side=head, client=python (unchanged)",
    );
  });
});
