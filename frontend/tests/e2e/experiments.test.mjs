// An experiment written, run and read in Chromium: its document saved from the form (the page
// it opens names its jobs and expectations), run on one host and then on another from its page,
// each run judged by the lab once its jobs end (holds, does not hold, not decided, each with
// its value and why), the lab's figure beside the reference, the two runs side by side, and the
// run's export as Markdown.
//
//   LATLAB_URL=... LATLAB_EMAIL=... LATLAB_PASSWORD=... LATLAB_EXPERIMENT='{json}' \
//   LATLAB_HOST_TAGS=tag-a,tag-b node --test tests/e2e/experiments.test.mjs
//
// backend/tests/test_experiments_e2e.py provides a lab with two real runners and the beat.

import assert from "node:assert/strict";
import { test } from "node:test";

import { labUrl, requireEnv, screenshot, signedInSession } from "./browser.mjs";

const baseUrl = labUrl();
const document = JSON.parse(requireEnv("LATLAB_EXPERIMENT"));
const [firstTag, secondTag] = requireEnv("LATLAB_HOST_TAGS").split(",");
const JUDGED_MS = 600_000; // bounds the wait for a run's jobs, not the test
const session = signedInSession(baseUrl);

/** Runs the experiment on hosts with `tag` from its page; the new run's id once it is judged. */
async function runOn(page, tag, before) {
  await page.getByLabel("Host tags").fill(tag);
  await page.getByRole("button", { name: "Run", exact: true }).click();
  const rows = page.locator("table.experiment-runs tbody tr");
  await page.waitForFunction(
    (count) => document.querySelectorAll("table.experiment-runs tbody tr").length > count,
    before,
    { timeout: JUDGED_MS },
  );
  const newest = rows.first();
  const id = await newest.getAttribute("data-run");
  await newest.locator("td", { hasText: "done" }).waitFor({ timeout: JUDGED_MS });
  return id;
}

test("an experiment saved, run on two hosts, judged and read", async (t) => {
  const { page } = session;
  let first;
  let second;

  await t.test("saved from the form, its page names its jobs and expectations", async () => {
    await page.goto(`${baseUrl}/experiments`);
    await page.getByRole("heading", { name: "Experiments", level: 1 }).waitFor();
    await page.getByLabel("Document (JSON)").fill(JSON.stringify(document, null, 2));
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForURL(`**/experiments/${document.name}`);
    await page.getByRole("heading", { name: document.title, level: 1 }).waitFor();
    for (const job of Object.keys(document.jobs)) {
      await page.locator("table.experiment-jobs").getByRole("rowheader", { name: job }).waitFor();
    }
    for (const expectation of document.expectations) {
      await page.locator("ul.expectations li", { hasText: expectation }).waitFor();
    }
  });

  await t.test("run on one host, then another, each judged", async () => {
    first = await runOn(page, firstTag, 0);
    second = await runOn(page, secondTag, 1);
    assert.notEqual(first, second);
    await page.goto(`${baseUrl}/experiments/${document.name}?run=${first}`);
    const panel = page.locator(`[data-experiment-run="${first}"]`);
    await panel.waitFor();
    const rows = panel.locator("table.judgements-table tbody tr");
    assert.equal(await rows.count(), document.expectations.length);
    const outcomes = await rows.evaluateAll((all) => all.map((row) => row.dataset.outcome));
    assert.deepEqual(outcomes, JSON.parse(requireEnv("LATLAB_OUTCOMES")));
    for (const row of await rows.all()) {
      assert.notEqual((await row.locator("td").last().innerText()).trim(), "");
    }
    const figure = panel.locator("table.figures-table tbody tr").first();
    assert.match(await figure.innerText(), /x\d+\.\d\d/);
    await screenshot(page, "experiment-run");
  });

  await t.test("the two runs side by side", async () => {
    const row = page.locator(`table.experiment-runs tr[data-run="${second}"]`);
    await row.getByRole("link", { name: `beside #${first}` }).click();
    const beside = page.locator(`[data-side-by-side="${first}-${second}"]`);
    await beside.waitFor();
    assert.equal(
      await beside.locator("tbody tr").count(),
      document.expectations.length,
    );
    await screenshot(page, "experiment-side-by-side");
  });

  await t.test("its export reads like a report", async () => {
    const link = page
      .locator(`[data-experiment-run="${first}"]`)
      .getByRole("link", { name: "Export as Markdown" });
    const answer = await page.request.get(`${baseUrl}${await link.getAttribute("href")}`);
    assert.equal(answer.status(), 200);
    const text = await answer.text();
    assert.ok(text.startsWith(`# ${document.title}\n`), text.slice(0, 200));
    assert.match(text, /## Expectations/);
  });
});
