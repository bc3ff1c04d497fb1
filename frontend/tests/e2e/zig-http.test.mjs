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

  await t.test("at 1,400 px every table of the run, the comparison and the jobs fits its box", async () => {
    const { page } = session;
    await page.setViewportSize({ width: 1400, height: 900 });
    const comparison = page.url();
    for (const [where, ready] of [
      [`/runs/${runId}`, "table.summary-table tbody tr"],
      [comparison.slice(baseUrl.length), "main table tbody tr"],
      ["/jobs", "main table tbody tr"],
    ]) {
      await page.goto(`${baseUrl}${where}`);
      await page.locator(ready).first().waitFor();
      await page.waitForLoadState("networkidle");
      const [scrollWidth, innerWidth] = await page.evaluate(() => [
        document.documentElement.scrollWidth,
        window.innerWidth,
      ]);
      assert.ok(scrollWidth <= innerWidth, `${where} is ${scrollWidth} px wide`);
      assert.deepEqual(await cutOff(page), [], where);
    }
    await screenshot(page, "zig-http-04-run-at-1400");
  });
});

/**
 * Table cells that stick out of the page's main box where no scrolling box of their own lets
 * the reader reach them (a wide table may scroll inside its box; it may not be cut).
 */
function cutOff(page) {
  return page.evaluate(() => {
    const main = document.querySelector("main").getBoundingClientRect();
    const scrolls = (element) => {
      for (let at = element.parentElement; at && at.tagName !== "MAIN"; at = at.parentElement) {
        const overflow = getComputedStyle(at).overflowX;
        if (overflow === "auto" || overflow === "scroll") return at;
      }
      return null;
    };
    return [...document.querySelectorAll("main th, main td")]
      .filter((cell) => {
        const box = scrolls(cell);
        // Inside a scrolling box, what lies past its edge is reached by scrolling; the box
        // itself must end inside main.
        return box
          ? box.getBoundingClientRect().right > main.right + 0.5
          : cell.getBoundingClientRect().right > main.right + 0.5;
      })
      .slice(0, 8)
      .map((cell) => `${cell.closest("table")?.className}: ${cell.textContent.slice(0, 30)}`);
  });
}
