// The zig-http suite in the browser: a shortened `seed` run (zig and go, ab and hdr, at 10,
// 100, 500 and 1000 connections) drawn as RPS and P99 curves against concurrency, then zig
// compared with go inside the run, point by point. Screenshots of both.
//
//   LATLAB_URL=... LATLAB_EMAIL=... LATLAB_PASSWORD=... LATLAB_ZIG_HTTP_RUN_ID=... \
//   node --test tests/e2e/zig-http.test.mjs
//
// backend/tests/test_zig_http_jobs.py provides all of this from a throwaway lab.

import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";

import { labUrl, requireEnv, screenshot, screenshotDir, signedInSession } from "./browser.mjs";

const baseUrl = labUrl();
const runId = requireEnv("LATLAB_ZIG_HTTP_RUN_ID");
const VERDICTS = ["improved", "regressed", "unchanged", "inconclusive"];

const session = signedInSession(baseUrl);

test("zig-http: the seed's sweep as curves, zig against go", async (t) => {
  await t.test("the run draws RPS and P99 against concurrency", async () => {
    await session.page.goto(`${baseUrl}/runs/${runId}`);
    await session.page.getByRole("heading", { name: "Load-latency curves" }).waitFor();
    const p99 = session.page.getByRole("figure", { name: "P99 against concurrency" });
    const rps = session.page.getByRole("figure", { name: "requests answered against concurrency" });
    await p99.waitFor();
    await rps.waitFor();
    // Four lines (zig and go, by ab and by hdr), a dot per concurrency on each.
    await p99.locator("circle").nth(15).waitFor();
    assert.equal(await p99.locator("circle").count(), 16);
    assert.equal(await rps.locator("circle").count(), 16);
    // ApacheBench prints whole milliseconds: its sub-millisecond values say "< 1 ms", no cell
    // of the summary says "0 ns".
    const cells = await session.page
      .locator("table.summary-table td[data-column]")
      .allInnerTexts();
    assert.ok(cells.length > 0);
    assert.ok(cells.every((text) => !/^~?0 ns/.test(text.trim())), cells.join(" | "));
    // Each program's CPU time is a column of its own, and no two columns read alike.
    const columns = (
      await session.page.locator("details.column-chooser label").allTextContents()
    ).map((text) => text.trim());
    assert.equal(new Set(columns).size, columns.length, columns.join(" | "));
    assert.ok(columns.filter((text) => text.startsWith("CPU time (")).length >= 2, columns.join(" | "));
    const headers = (
      await session.page.locator("table.summary-table thead th").allTextContents()
    ).filter((text) => text.trim());
    assert.equal(new Set(headers).size, headers.length, headers.join(" | "));
    await screenshot(session.page, "zig-http-01-seed-curves");
  });

  await t.test("zig compared with go inside the run, per concurrency", async () => {
    const form = session.page.getByRole("form", { name: "Compare two series of this run" });
    await form.getByLabel("Along").selectOption("server");
    await form.getByLabel("baseline").selectOption("go");
    await form.getByLabel("candidate").selectOption("zig");
    await form.getByRole("button", { name: "Compare series" }).click();
    await session.page.waitForURL(/\/compare\?/);
    await session.page.getByText(/\[server=zig\] against/).waitFor();
    await session.page.getByRole("heading", { name: "Load-latency curves" }).waitFor();
    const p99 = session.page.getByRole("figure", { name: "P99 against concurrency" });
    await p99.locator("circle[data-verdict]").nth(7).waitFor();
    // A verdict at each of the 8 points (4 concurrencies by 2 load generators).
    const verdicts = await p99.locator("circle[data-verdict]").evaluateAll((dots) =>
      dots.map((dot) => dot.getAttribute("data-verdict")),
    );
    assert.equal(verdicts.length, 8);
    for (const verdict of verdicts) assert.ok(VERDICTS.includes(verdict), verdict);
    await screenshot(session.page, "zig-http-02-zig-against-go");
    // The page is long (every metric of 8 points): the curves with their verdicts alone too.
    await session.page.mouse.move(0, 0);
    await session.page
      .locator(".curve-grid")
      .screenshot({ path: path.join(screenshotDir, "zig-http-03-verdict-curves.png") });
  });
});
