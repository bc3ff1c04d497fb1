import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import { keys } from "../api/keys";
import type { TrendRead } from "../api/types";
import { slaRule } from "../test/fixtures";
import { useTrend, type TrendChoice } from "./useTrend";

const choice: TrendChoice = {
  suite: "http-order",
  scenario: "medium",
  metric: "p99",
  series: [{ key: '{"client":"rust"}', labels: { client: "rust" }, failing: false }],
  branch: null,
  host: null,
  days: null,
  params: null,
  runId: null,
};

const point = (runId: number, value: number) => ({
  run_id: runId,
  runs: 1,
  started_at: `2026-11-0${String(runId)}T10:00:00Z`,
  value,
  commit: null,
  branch: "main",
  host_name: "lab-07",
});

const trend = {
  labels: { client: "rust" },
  unit: "ms",
  direction: "lower",
  points: [point(1, 1.5), point(2, 1.6)],
  change_points: [],
  window: null,
} as unknown as TrendRead;

/** What the hook gives a page for a series whose trend and the rules are already read. */
function Probe() {
  const read = useTrend(choice);
  return (
    <p>
      {read.rows.length} rows, {read.lines.map((line) => line.name).join()} in {read.unit};{" "}
      {read.thresholds.map((threshold) => threshold.name).join()}
    </p>
  );
}

describe("useTrend", () => {
  it("merges each series' trend into the chart's rows and lines, with the rules that apply", () => {
    const client = new QueryClient();
    const { suite, scenario, metric } = choice;
    client.setQueryData(
      keys.analysis.trends({ suite, scenario, metric, labels: choice.series[0]!.key }),
      trend,
    );
    client.setQueryData(keys.alerts.rules(), [slaRule({ id: 1 }), slaRule({ id: 2, suite: "zmq" })]);
    const html = renderToStaticMarkup(
      <QueryClientProvider client={client}>
        <Probe />
      </QueryClientProvider>,
    );
    expect(html).toBe("<p>2 rows, client=rust in ms; P99 over 2 ms</p>");
  });
});
