// Trends in Chromium: a trend draws main by default and names the params it draws; runs
// started in the same second each have their own point, and a click opens that point's run;
// the latest run's window is drawn and written; annotations (the lab's kernel upgrade, CI's
// deploy) are drawn and listed, and one added from the page appears and goes; a run's page
// shows the gate's evidence and opens the trend of its own history; an admin sets gate
// thresholds in the settings.
//
//   LATLAB_URL=... LATLAB_EMAIL=... LATLAB_PASSWORD=... LATLAB_SAME_SECOND_RUN_IDS=4,5,6 \
//   LATLAB_FEATURE_RUN_ID=11 LATLAB_LATEST_RUN_ID=12 node --test tests/e2e/trends.test.mjs
//
// backend/tests/test_trends_e2e.py provides all of this from a throwaway stack: http-order
// `medium`, series {client: rust}, a history of main with params connections=50 (and an older
// one with connections=200, on kernel 6.1.0 where the rest ran on 6.14.0), a slower run of the
// branch `feature`, and CI's annotation "deployed orders 2.4" at 2026-11-15 12:00.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";

import { labUrl, newPage, requireEnv, screenshot, signedInSession } from "./browser.mjs";

const baseUrl = labUrl();
const sameSecond = requireEnv("LATLAB_SAME_SECOND_RUN_IDS").split(",");
const featureRunId = requireEnv("LATLAB_FEATURE_RUN_ID");
const latestRunId = requireEnv("LATLAB_LATEST_RUN_ID");
const trendUrl = `${baseUrl}/trends?suite=http-order&scenario=medium&metric=p99`;

const session = signedInSession(baseUrl);

function chart() {
  return session.page.getByRole("figure", { name: "Metric over time" });
}

function point(runId) {
  return chart().locator(`circle.trend-point[data-run-id="${runId}"]`);
}

test("trends: one history, and each point opens its own run", async (t) => {
  await t.test("a trend draws main by default and names the params drawn", async () => {
    await session.page.goto(trendUrl);
    await point(latestRunId).waitFor();
    assert.equal(await session.page.getByTestId("trend-branch").innerText(), "main");
    const params = await session.page.getByTestId("trend-params").innerText();
    assert.match(params, /connections=50/);
    assert.match(params, /orders=1000/);
    // The other params set and the other branch are offered, not mixed in.
    const picker = session.page.getByRole("combobox", { name: "Params" });
    assert.equal(await picker.locator("option").count(), 2);
    assert.match(
      await picker.locator("option").nth(1).innerText(),
      /connections=200, orders=1000 \(3 runs\)/,
    );
    await session.page.getByRole("button", { name: "feature" }).waitFor();
    assert.equal(await point(featureRunId).count(), 0, "the feature branch's run is not drawn");
    // The latest run's window: drawn, and written with the smallest change it lets the gate see.
    await chart().locator(".trend-window").first().waitFor({ state: "attached" });
    const windows = session.page.getByRole("list", { name: "Windows" });
    assert.match(await windows.innerText(), /was judged against the window of its last 15 runs/);
    assert.match(
      await windows.getByTestId("smallest-change").innerText(),
      /\d+(\.\d)?% with 1 trial, \d+(\.\d)?% with 3, \d+(\.\d)?% with 5/,
    );
    await screenshot(session.page, "trends-01-main");
  });

  await t.test("annotations are drawn between runs and listed; one is added and removed", async () => {
    const lines = () => chart().locator(".trend-annotation");
    const list = session.page.getByRole("list", { name: "Annotations" });
    await list.waitFor();
    assert.equal(await lines().count(), 2);
    const listed = await list.innerText();
    // The lab's, at the first run on the new kernel (the trend's first), then CI's deploy.
    assert.match(listed, /A1 · 2026-11-10 10:00:00 UTC · host lab-07: kernel 6\.1\.0 -> 6\.14\.0/);
    assert.match(listed, /A2 · 2026-11-15 12:00:00 UTC · deployed orders 2\.4/);
    assert.equal(
      await list.getByRole("link", { name: "link" }).getAttribute("href"),
      "https://ci.example.com/deploys/812",
    );
    // CI's deploy sits between the runs of 11-15 and 11-16, left of the 11-16 run's point.
    const rows = await chart().locator("circle.trend-point").evaluateAll((circles) =>
      circles.map((c) => Number(c.getAttribute("cx"))),
    );
    const deployX = await lines()
      .nth(1)
      .locator("line")
      .evaluate((line) => Number(line.getAttribute("x1")));
    const sorted = [...new Set(rows)].sort((a, b) => a - b);
    assert.ok(deployX > sorted[5] && deployX < sorted[6], `${deployX} in ${sorted.join(", ")}`);
    await screenshot(session.page, "trends-01b-annotations");

    await session.page.getByLabel("What happened").fill("config: batching on");
    await session.page.getByRole("button", { name: "Annotate" }).click();
    await list.getByText("config: batching on").waitFor();
    await session.page.waitForFunction(
      () => document.querySelectorAll("figure .trend-annotation").length === 3,
    );
    const added = list.locator("li", { hasText: "config: batching on" });
    assert.match(await added.innerText(), /\(note, /);
    await added.getByRole("button", { name: "remove" }).click();
    await added.waitFor({ state: "detached" });
    assert.equal(await lines().count(), 2);
  });

  await t.test("the chart downloads as SVG; a shared trend opens without a login", async () => {
    await session.page.goto(trendUrl);
    await point(latestRunId).waitFor();
    const [download] = await Promise.all([
      session.page.waitForEvent("download"),
      chart().getByRole("button", { name: "SVG" }).click(),
    ]);
    assert.equal(download.suggestedFilename(), "metric-over-time.svg");
    const svg = await readFile(await download.path(), "utf8");
    assert.match(svg, /^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.ok(!svg.includes("var(--"), "the page's CSS variables are written out");
    assert.ok(svg.includes("<circle"), "the points are in it");

    await session.page.getByRole("button", { name: "Share" }).click();
    const shared = session.page.getByRole("group", { name: "Shared link" });
    const link = await shared.getByRole("textbox").first().inputValue();
    assert.match(link, /\/shared\/lls_[A-Za-z0-9_-]{32}$/);
    assert.match(await shared.getByRole("textbox").nth(2).inputValue(), /badge\.svg/);
    const { ctx, page } = await newPage(session.browser);
    try {
      await page.goto(link);
      await page
        .getByRole("figure", { name: "Metric over time" })
        .locator("circle.trend-point")
        .first()
        .waitFor();
      assert.match(
        await page.locator(".shared-header").innerText(),
        /read-only page shared from project/,
      );
      await screenshot(page, "trends-01c-shared");
      // The link opens that page only: the dashboard still asks for a login.
      await page.goto(`${baseUrl}/runs`);
      await page.waitForURL(/\/login/);
    } finally {
      await ctx.close();
    }
  });

  await t.test("runs started in the same second are points of their own", async () => {
    const xs = [];
    for (const runId of sameSecond) xs.push(Number(await point(runId).getAttribute("cx")));
    assert.equal(new Set(xs).size, sameSecond.length, `distinct places: ${xs.join(", ")}`);
    assert.deepEqual(
      xs,
      [...xs].sort((a, b) => a - b),
      "in the order they came",
    );
  });

  await t.test("a click on each of them opens that run", async () => {
    for (const runId of sameSecond) {
      await session.page.goto(trendUrl);
      await point(runId).click();
      await session.page.waitForURL(`${baseUrl}/runs/${runId}`);
      await session.page.getByRole("heading", { name: "CI verdict" }).waitFor();
    }
  });

  await t.test("another params set is drawn when chosen", async () => {
    await session.page.goto(trendUrl);
    await session.page
      .getByRole("combobox", { name: "Params" })
      .selectOption({ label: "connections=200, orders=1000 (3 runs)" });
    await session.page.waitForURL(/params=/);
    await session.page.getByTestId("trend-params").getByText("connections=200, orders=1000").waitFor();
    assert.equal(await chart().locator("circle.trend-point").count(), 3);
  });

  await t.test("the run page shows the gate's evidence", async () => {
    await session.page.goto(`${baseUrl}/runs/${latestRunId}`);
    await session.page.getByRole("heading", { name: "Judged against its history" }).waitFor();
    const table = session.page.getByRole("table", { name: "Gate evidence" });
    const p99 = table.locator('tr[data-metric="p99"]');
    await p99.waitFor();
    const text = await p99.innerText();
    assert.match(text, /15 runs on main, from run #\d+ @ \w+ to run #\d+ @ \w+/);
    assert.match(text, /\d+(\.\d)?% with 1 trial/);
    assert.match(text, /\d\.?\d* (≤|>) \d\.?\d*/);
    const first = p99.getByRole("link", { name: /^run #\d+$/ }).first();
    const href = await first.getAttribute("href");
    assert.match(href, /^\/runs\/\d+$/);
    await screenshot(session.page, "trends-02-run-evidence");
  });

  await t.test("a run's Trends opens its own branch's history, its point drawn", async () => {
    await session.page.goto(`${baseUrl}/runs/${featureRunId}`);
    // The run's own link, not the menu's.
    await session.page.locator(".page-actions").getByRole("link", { name: "Trends" }).click();
    await session.page.waitForURL(new RegExp(`run=${featureRunId}`));
    await point(featureRunId).waitFor();
    assert.equal(await session.page.getByTestId("trend-branch").innerText(), "feature");
    await point(featureRunId).click();
    await session.page.waitForURL(`${baseUrl}/runs/${featureRunId}`);
  });

  await t.test("an admin sets gate thresholds in the settings", async () => {
    await session.page.goto(`${baseUrl}/settings#gate`);
    const table = session.page.locator(".gate-table");
    await table.locator('tr[data-scope="default"]').getByText("30 runs").waitFor();
    const form = session.page.getByRole("form", { name: "Set gate thresholds" });
    await form.getByLabel("Applies to").fill("http-order/large");
    await form.getByLabel("Window (runs)").fill("3");
    await form.getByRole("button", { name: "Save thresholds" }).click();
    await form.getByText("5 to 500 runs").waitFor();
    await form.getByLabel("Window (runs)").fill("20");
    await form.getByLabel("Minimum effect (%)").fill("3");
    await form.getByLabel("Errors allowed (%)").fill("2.5");
    await form.getByRole("button", { name: "Save thresholds" }).click();
    const row = table.locator('tr[data-scope="http-order/large"]');
    await row.getByText("20 runs").waitFor();
    await row.getByText("3%").waitFor();
    await row.getByText("2.5%").waitFor();
    await screenshot(session.page, "trends-03-gate-settings");
  });
});
