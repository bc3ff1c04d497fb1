// The zmq suite's acceptance in the browser: the seed's experiment (its before and after
// sockets on the lossy network) as one run, then before compared with after inside it:
// deltas, verdicts and the warnings on tails resting on few samples. Screenshots of both.
//
//   LATLAB_URL=... LATLAB_EMAIL=... LATLAB_PASSWORD=... LATLAB_ZMQ_RUN_ID=... \
//   node --test tests/e2e/zmq.test.mjs
//
// backend/tests/test_zmq_dashboard_e2e.py provides all of this from a throwaway lab.

import assert from "node:assert/strict";
import { test } from "node:test";

import { labUrl, requireEnv, screenshot, signedInSession } from "./browser.mjs";

const baseUrl = labUrl();
const runId = requireEnv("LATLAB_ZMQ_RUN_ID");

const session = signedInSession(baseUrl);

test("zmq seed: the seed's before against its after inside one run", async (t) => {
  await t.test("the run holds every series and says which network it ran on", async () => {
    await session.page.goto(`${baseUrl}/runs/${runId}`);
    await session.page.getByRole("heading", { name: "Compare two series" }).waitFor();
    await session.page.getByText("lossy").first().waitFor();
    for (const label of ["profile=baseline-128k", "profile=tuned", "pattern=pub-sub"]) {
      await session.page.getByText(label).first().waitFor();
    }
    await screenshot(session.page, "zmq-01-seed-run");
  });

  await t.test("before vs after: deltas, verdicts, few-sample warnings", async () => {
    const form = session.page.getByRole("form", { name: "Compare two series of this run" });
    // By the label's start: a select's name also holds its options ("baseline", "tuned").
    await form.getByLabel(/^Along/).selectOption("profile");
    await form.getByLabel(/^baseline/).selectOption("baseline-128k");
    await form.getByLabel(/^candidate/).selectOption("tuned");
    await form.getByRole("button", { name: "Compare series" }).click();
    await session.page.waitForURL(/\/compare\?/);
    await session.page.getByText(/\[profile=tuned\] against/).waitFor();
    const table = session.page.locator("table.compare-table");
    await table.waitFor();
    // One group per (symbol, pattern, instrument), each with the seed's rows (unchanged ones
    // folded: unfold them all).
    assert.equal(await table.locator("tbody[data-series]").count(), 4);
    const folds = table.getByRole("button", { name: /^Show \d+ unchanged/ });
    while ((await folds.count()) > 0) await folds.first().click();
    const p50 = table.locator('tr[data-metric="p50"]');
    assert.equal(await p50.count(), 4);
    for (let i = 0; i < 4; i += 1) {
      const cells = p50.nth(i).locator("td");
      assert.match(await cells.nth(2).innerText(), /\d/); // the delta
      // One trial a side: a low-confidence verdict, inconclusive or unchanged.
      assert.match(await cells.nth(4).innerText(), /inconclusive|unchanged/);
    }
    await table.getByText("⚠ few samples").first().waitFor();
    assert.ok((await table.locator("tr.unreliable-row").count()) >= 2);
    await screenshot(session.page, "zmq-02-baseline-vs-tuned");
  });
});
