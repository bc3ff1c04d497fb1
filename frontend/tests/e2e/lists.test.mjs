// The overview, the runs list and a comparison in Chromium, on a history the old pages got
// wrong (backend/tests/test_lists_e2e.py provides it):
//
//   LATLAB_URL=... LATLAB_EMAIL=... LATLAB_PASSWORD=... LATLAB_FAILING_RUN=31 \
//   LATLAB_PAIR_RUNS=142,143 node --test tests/e2e/lists.test.mjs

import assert from "node:assert/strict";
import { test } from "node:test";

import { labUrl, requireEnv, screenshot, signedInSession, tick } from "./browser.mjs";

const baseUrl = labUrl();
const failingRun = requireEnv("LATLAB_FAILING_RUN");
const [rustRun, goRun] = requireEnv("LATLAB_PAIR_RUNS").split(",");
const benchRun = requireEnv("LATLAB_BENCH_RUN");
const [wideBefore, wideAfter] = requireEnv("LATLAB_WIDE_RUNS").split(",");
const session = signedInSession(baseUrl);

test("the overview lists every suite and scenario, failing first, past the last 100 runs", async () => {
  const { page } = session;
  await page.goto(`${baseUrl}/`);
  const card = page.getByRole("region", { name: "Latest run per suite and scenario" });
  const rows = card.locator("tbody tr");
  await rows.first().waitFor();
  const first = rows.first();
  assert.equal(await first.getAttribute("data-suite"), "suite-07");
  assert.equal(await first.getAttribute("class"), "failing");
  await first.getByRole("link", { name: `#${failingRun}` }).waitFor();
  // Its sparkline: the pair's two runs.
  await first
    // (Postgres keeps JSON keys shortest first: load before client.)
    .getByRole("figure", {
      name: /^P99 of load=hdr, client=rust over the last 2 runs, as % of its median \(±\d+ % shared by every row\)$/,
    })
    .waitFor();
  // 34 pairs, 25 a page: suite-00 (its one run is older than the last 100) is on the first
  // page, suite-29 on the second.
  await card.locator('tr[data-suite="suite-00"]').waitFor();
  await card.getByText(/1.25 of 34/).waitFor();
  await card.getByRole("button", { name: /next/i }).click();
  await card.locator('tr[data-suite="suite-29"]').waitFor();
  await screenshot(page, "lists-overview");
});

test("the runs list filters by verdict and suite prefix, sorts, and shows P99", async () => {
  const { page } = session;
  await page.goto(`${baseUrl}/runs`);
  const table = page.locator("table.runs-table");
  await table.locator("tbody tr").first().waitFor();
  // The headline columns.
  const p99 = table.locator("tbody tr").first().locator("td.num").first();
  assert.match((await p99.innerText()).trim(), /^\d+(\.\d+)? (µs|ms)$/);

  const filters = page.getByRole("form", { name: "Filter runs" });
  await filters.getByLabel("Verdict").selectOption("fail");
  await filters.getByRole("button", { name: "Apply" }).click();
  await page.waitForURL(/verdict=fail/);
  await table.locator(`tr[data-run-id="${failingRun}"]`).waitFor();
  await table.locator(`tr[data-run-id="${wideAfter}"]`).waitFor();
  // Its P99 is of the series its gate named (client=c17), not its first (client=c0).
  assert.equal(
    await table.locator(`tr[data-run-id="${wideAfter}"] td.num`).first().getAttribute("title"),
    "series: client=c17",
  );
  await page.waitForFunction(() => document.querySelectorAll("table.runs-table tbody tr").length === 2);

  await page.goto(`${baseUrl}/runs`);
  await filters.getByLabel("Suite").fill("SUITE-2");
  await filters.getByRole("button", { name: "Apply" }).click();
  await page.waitForURL(/suite=SUITE-2/);
  await page.waitForFunction(() => {
    const suites = [...document.querySelectorAll("table.runs-table tbody tr td:nth-child(3)")]
      .map((cell) => cell.textContent);
    return suites.length === 10 && suites.every((suite) => suite?.startsWith("suite-2"));
  });
  // Sorted by suite: suite-20 first, then the other way round.
  await page.getByRole("button", { name: "Suite" }).click();
  await page.waitForURL(/order=suite/);
  await page.waitForFunction(
    () => document.querySelector("table.runs-table tbody tr td:nth-child(3)")?.textContent === "suite-20",
  );
  await page.getByRole("button", { name: /^Suite/ }).click();
  await page.waitForURL(/order=-suite/);
  await page.waitForFunction(
    () => document.querySelector("table.runs-table tbody tr td:nth-child(3)")?.textContent === "suite-29",
  );
  // Sorted by P99 (the server's order, over every page), all runs: slowest first, then
  // fastest first. The rows change once the new page has come (the old stay meanwhile).
  await page.goto(`${baseUrl}/runs`);
  await table.locator("tbody tr").first().waitFor();
  for (const [order, sign] of [["-p99", -1], ["p99", 1]]) {
    await page.getByRole("button", { name: /^P99/ }).click();
    await page.waitForURL(new RegExp(`order=${order}(&|$)`));
    const shown = async () =>
      (
        await table
          .locator("tbody tr")
          .evaluateAll((rows) => rows.map((row) => row.querySelector("td.num")?.textContent ?? ""))
      ).map(nanoseconds);
    const inOrder = (values) => values.every((value, i) => i === 0 || sign * (value - values[i - 1]) >= 0);
    const deadline = Date.now() + 30_000;
    let values = await shown();
    while (!inOrder(values) && Date.now() < deadline) {
      await page.waitForTimeout(200);
      values = await shown();
    }
    assert.ok(inOrder(values), `${order}: ${values.join(", ")}`);
    assert.ok(new Set(values).size > 1, values.join(", "));
    assert.equal(
      await table.locator("thead th[aria-sort]").getAttribute("aria-sort"),
      sign < 0 ? "descending" : "ascending",
    );
  }
  await screenshot(page, "lists-runs-filtered");
});

/** A P99 cell's text ("412 µs", "~1.20 ms") in nanoseconds. */
function nanoseconds(text) {
  const match = /^~?([\d.,]+) (ns|µs|ms|s)$/.exec(text.trim());
  assert.ok(match, text);
  return Number(match[1].replaceAll(",", "")) * { ns: 1, µs: 1e3, ms: 1e6, s: 1e9 }[match[2]];
}

test("up to six picked runs side by side; a seventh pick is refused", async () => {
  const { page } = session;
  await page.goto(`${baseUrl}/runs?suite=busy`);
  const boxes = page.locator("table.runs-table tbody input[type=checkbox]");
  await boxes.nth(6).waitFor();
  for (let i = 0; i < 6; i += 1) await tick(boxes.nth(i));
  assert.equal(await boxes.nth(6).isDisabled(), true);
  await page.getByText(/at most 6 runs/).waitFor();
  await page.getByRole("button", { name: "Compare", exact: true }).click();
  await page.waitForURL(/\/compare\?runs=(\d+,){5}\d+$/);
  const table = page.locator("table.several-runs-table");
  await table.waitFor();
  assert.equal(await table.locator("thead th[data-run-id]").count(), 6);
  const verdicts = page.getByRole("list", { name: "Verdicts against the first run" });
  assert.equal(await verdicts.locator("li").count(), 5);
  await table.locator('tr[data-metric="p99"] td').nth(6).waitFor();
  await page.getByRole("figure", { name: "Several runs' latency by percentile" }).waitFor();
  await page.waitForFunction(() => document.title === "Compare · latlab");
  await screenshot(page, "lists-compare-six");
});

test("a comparison of runs with no series in common says so", async () => {
  const { page } = session;
  await page.goto(`${baseUrl}/compare?baseline=${rustRun}&candidate=${goRun}`);
  await page.getByText("nothing compared: the runs have no series in common").waitFor();
  assert.equal(await page.getByText("no significant change").count(), 0);
  await screenshot(page, "lists-compare-nothing-in-common");
});

test("30 series compared: the regression named and first, filters, a search, spectra in one request a run", async () => {
  const { page } = session;
  const spectra = [];
  const listen = (request) => {
    if (/\/spectr/.test(request.url())) spectra.push(new URL(request.url()).pathname);
  };
  page.on("request", listen);
  try {
    await page.goto(`${baseUrl}/compare?baseline=${wideBefore}&candidate=${wideAfter}`);
    const regressions = page.getByLabel("Regressions");
    await regressions.waitFor();
    assert.match(await regressions.innerText(), /^Regressed: client=c17 P\d+ \+\d+(\.\d+)?%$/);
    await page.getByLabel("CI gate verdict").waitFor();
    const table = page.locator("table.compare-table");
    const groups = table.locator("tbody[data-series]");
    // More than 20 series: the changed ones only, at first.
    const filters = page.getByRole("search", { name: "Series compared" });
    assert.equal(await filters.getByLabel("Changed only").isChecked(), true);
    await page.waitForFunction(() => document.querySelectorAll("table.compare-table tbody[data-series]").length === 1);
    assert.equal(await groups.first().getAttribute("data-series"), "client=c17");
    await tick(filters.getByLabel("Changed only"), false);
    await page.waitForFunction(() => document.querySelectorAll("table.compare-table tbody[data-series]").length === 30);
    assert.equal(await groups.first().getAttribute("data-series"), "client=c17");
    await filters.getByText("30 of 30 series").waitFor();
    await filters.getByLabel("Series").fill("client=c2");
    await page.waitForFunction(() => document.querySelectorAll("table.compare-table tbody[data-series]").length === 11);
    await tick(filters.getByLabel("Regressed only"));
    await page.getByText("No series match").waitFor();
    await tick(filters.getByLabel("Regressed only"), false);
    const figure = page.getByRole("figure", { name: "Baseline and candidate latency by percentile" });
    await figure.locator("path.recharts-line-curve").first().waitFor();
    await screenshot(page, "lists-compare-wide");

    // Spectra: one request a run for the series drawn, never one a series.
    assert.ok(spectra.length > 0);
    assert.ok(spectra.every((path) => /\/runs\/\d+\/spectra$/.test(path)), spectra.join(" "));

    spectra.length = 0;
    await page.goto(`${baseUrl}/runs/${wideAfter}`);
    const drawn = page.getByRole("search", { name: "Series in the spectrum" });
    await drawn.getByText("the first 12 of 30 matching series drawn").waitFor();
    const spectrum = page.getByRole("figure", { name: "Latency by percentile", exact: true });
    await spectrum.locator("path.recharts-line-curve").first().waitFor();
    // The spectrum reaches the max: its last tick, one "nine" past the last percentile.
    const tickLabels = spectrum.locator(".recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value");
    await tickLabels.getByText("max", { exact: true }).waitFor();
    const ticks = await tickLabels.allTextContents();
    assert.equal(ticks.at(-1), "max", ticks.join(" "));
    await drawn.getByLabel("Series").fill("c17");
    await drawn.getByText("1 of 30 series drawn").waitFor();
    await page.getByRole("figure", { name: "Latency by percentile", exact: true }).locator("path.recharts-line-curve").first().waitFor();
    assert.deepEqual(spectra, [`/api/v1/runs/${wideAfter}/spectra`, `/api/v1/runs/${wideAfter}/spectra`]);
  } finally {
    page.off("request", listen);
  }
});

test("a trend of 30 series: the one the newest run failed on ticked first, the rest by a search", async () => {
  const { page } = session;
  await page.goto(`${baseUrl}/trends?suite=wide&scenario=default`);
  const picker = page.getByRole("group", { name: "Series" });
  await picker.waitFor();
  const ticked = picker.locator("input[type=checkbox]:checked");
  await page.waitForFunction(() => document.querySelectorAll("fieldset.checks input[type=checkbox]").length === 21);
  assert.equal(await ticked.count(), 1);
  const first = picker.locator("label").filter({ has: page.locator("input:checked") });
  assert.match(await first.innerText(), /client=c17\s*failing/);
  await picker.getByText("9 more of 30 series: search to find them").waitFor();
  await picker.getByLabel("Find").fill("c29");
  await page.waitForFunction(() => document.querySelectorAll("fieldset.checks input[type=checkbox]").length === 2);
  await tick(picker.getByLabel("client=c29"));
  await page.waitForURL((url) => url.searchParams.getAll("series").length === 2);
  assert.equal(await ticked.count(), 2);
  // Two commits alike in 7 characters, told apart on the axis.
  const axis = page.locator('figure[aria-label="Metric over time"] .recharts-xAxis-tick-labels');
  await axis.getByText("feed0002", { exact: true }).waitFor();
  assert.deepEqual(await axis.locator(".recharts-cartesian-axis-tick-value").allTextContents(), [
    "feed0001",
    "feed0002",
  ]);
  await screenshot(page, "lists-trend-wide");
});

test("a trend chart: log scale, a legend click hides its line, a drag zooms", async () => {
  const { page } = session;
  await page.goto(`${baseUrl}/trends?suite=busy&scenario=quick&metric=p99`);
  const chart = page.getByRole("figure", { name: "Metric over time" });
  const lines = chart.locator("path.recharts-line-curve");
  await lines.first().waitFor();
  assert.equal(await lines.count(), 1);
  const ticks = (axis) =>
    chart
      .locator(`.recharts-${axis}Axis-tick-labels .recharts-cartesian-axis-tick-value`)
      .evaluateAll((nodes) => nodes.map((node) => node.textContent));
  const changed = async (axis, before) => {
    for (let tries = 0; tries < 50; tries += 1) {
      const now = await ticks(axis);
      if (JSON.stringify(now) !== JSON.stringify(before)) return now;
      await page.waitForTimeout(100);
    }
    assert.fail(`the ${axis} axis kept its ticks ${JSON.stringify(before)}`);
  };
  const linear = await ticks("y");
  assert.ok(linear.length > 1, JSON.stringify(linear));
  await tick(chart.getByLabel("Log scale"));
  await changed("y", linear);
  await screenshot(page, "lists-trend-log");

  await chart.locator(".recharts-legend-item").first().click();
  await page.waitForFunction(
    () => document.querySelectorAll('figure[aria-label="Metric over time"] path.recharts-line-curve').length === 0,
  );
  await chart.locator(".recharts-legend-item").first().click();
  await lines.first().waitFor();

  const logTicks = await ticks("y");
  await tick(chart.getByLabel("Log scale"), false);
  const fullY = await changed("y", logTicks);
  const before = await ticks("x");
  const plot = await chart.locator(".recharts-cartesian-grid").boundingBox();
  const y = plot.y + plot.height / 2;
  // A few runs of the seven-step cycle (350 us x 1..7): the value axis refits to them.
  await page.mouse.move(plot.x + plot.width * 0.3, y);
  await page.mouse.down();
  await page.mouse.move(plot.x + plot.width * 0.32, y, { steps: 5 });
  await page.mouse.move(plot.x + plot.width * 0.34, y, { steps: 5 });
  await page.mouse.up();
  const reset = chart.getByRole("button", { name: "Reset zoom" });
  await reset.waitFor();
  const zoomed = await changed("x", before);
  // Every label on the zoomed axis is a run inside the zoom: at most the handful dragged over.
  assert.ok(zoomed.length >= 2 && zoomed.length <= 8, JSON.stringify(zoomed));
  await changed("y", fullY);
  await screenshot(page, "lists-trend-zoomed");
  await reset.click();
  await reset.waitFor({ state: "detached" });
  assert.deepEqual(await ticks("x"), before);
  assert.deepEqual(await ticks("y"), fullY);
});

test("a run page: its banner, one line of shared labels, columns to choose, each series' history", async () => {
  const { page } = session;
  await page.goto(`${baseUrl}/runs/${failingRun}`);
  const banner = page.getByRole("region", { name: "Run at a glance" });
  await banner.getByText("Failed its CI gate").waitFor();
  await banner.getByText(/Refused tuning: sched_fifo \(not permitted here\)/).waitFor();
  await banner.getByRole("link", { name: /^alert #\d+$/ }).waitFor();
  await banner.getByText("P99 over its SLA").waitFor();

  await page.getByLabel("Labels of every series").getByText("load=hdr").waitFor();
  const table = page.locator("table.summary-table");
  const rowNames = await table.locator("tbody th").allInnerTexts();
  assert.deepEqual(rowNames, ["client=rust", "client=go"]);
  // The rust series' history: this run and the one before, a link to its trend.
  const spark = table.getByRole("figure", { name: /^P99 of client=rust over its last 2 runs$/ });
  await spark.waitFor();
  const trend = await table.locator("tbody tr").first().getByRole("link").getAttribute("href");
  assert.match(trend, /^\/trends\?suite=suite-07&scenario=default&metric=p99&series=/);

  // Columns: P50 shown by default, hidden by the chooser; throughput always there.
  const headers = () => table.locator("thead th").allInnerTexts();
  assert.ok((await headers()).includes("P50"));
  await page.getByText("Columns", { exact: true }).click();
  await tick(page.locator(".column-chooser").getByLabel("P50", { exact: true }), false);
  await page.waitForFunction(
    () => ![...document.querySelectorAll("table.summary-table thead th")].some((th) => th.textContent === "P50"),
  );
  assert.ok((await headers()).some((name) => /throughput/i.test(name)));
  await screenshot(page, "lists-run-page");
});

test("two series of one run compared: the sides named by their labels, each value's trials", async () => {
  const { page } = session;
  const query = new URLSearchParams({
    baseline: failingRun,
    candidate: failingRun,
    baseline_labels: JSON.stringify({ client: "rust" }),
    candidate_labels: JSON.stringify({ client: "go" }),
  });
  await page.goto(`${baseUrl}/compare?${query.toString()}`);
  const table = page.locator("table.compare-table");
  await table.waitFor();
  assert.deepEqual((await table.locator("th.side-name").allInnerTexts()).map((t) => t.trim()), [
    "rust",
    "go",
  ]);
  await table.getByText("1 trial").first().waitFor();
  const legend = page.getByRole("figure", { name: "Baseline and candidate latency by percentile" });
  await legend.getByText(/\(rust\)$/).first().waitFor();
  await screenshot(page, "lists-compare-series");
});

test("settings: tokens a page at a time, the SLA form's help follows its kind", async () => {
  const { page } = session;
  await page.goto(`${baseUrl}/settings`);
  await page.waitForFunction(() => document.title === "Settings · latlab");
  const rows = page.locator("table.tokens-table tbody tr");
  await rows.first().waitFor();
  assert.equal(await rows.count(), 20);
  const pages = page.getByRole("navigation", { name: "Token pages" });
  await pages.getByText(/^1.20 of 25$/).waitFor();
  await pages.getByRole("button", { name: "Next" }).click();
  await page.waitForFunction(
    () => document.querySelectorAll("table.tokens-table tbody tr").length === 5,
  );
  await page.getByRole("heading", { name: "Alert channels: Slack, webhooks and email" }).waitFor();
  const kind = page.getByRole("form", { name: "New SLA rule" }).getByLabel("Kind", { exact: true });
  await kind.selectOption("static");
  await page.getByText("Static: a fixed threshold, in the unit below").waitFor();
  await kind.selectOption("relative");
  await page.getByText("Relative: the change against the baseline, in %").waitFor();
  await screenshot(page, "lists-settings");
});

test("a harness with one value a trial is drawn as their mean and range, not a spectrum", async () => {
  const { page } = session;
  await page.goto(`${baseUrl}/runs/${benchRun}`);
  const chart = page.getByRole("figure", { name: "Mean of the trials, with their range" });
  await chart.waitFor();
  await chart.getByText("bench=BenchmarkParse").waitFor();
  assert.equal(await page.getByRole("heading", { name: "Percentile spectrum" }).count(), 0);
  await screenshot(page, "lists-point-estimates");
});
