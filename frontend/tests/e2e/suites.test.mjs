// Suites v2 in the browser: a swept echo run drawn as load-latency curves, and a new suite's
// run (made as a folder only) showing its own metric with its unit, then two of its series
// compared inside the run, point by point. Screenshots of each.
//
//   LATLAB_URL=... LATLAB_EMAIL=... LATLAB_PASSWORD=... LATLAB_SWEEP_RUN_ID=... \
//   LATLAB_FROB_RUN_ID=... node --test tests/e2e/suites.test.mjs
//
// backend/tests/test_suites_v2_e2e.py provides all of this from a throwaway lab.

import assert from "node:assert/strict";
import { test } from "node:test";

import { labUrl, requireEnv, screenshot, signedInSession } from "./browser.mjs";

const baseUrl = labUrl();
const sweepRunId = requireEnv("LATLAB_SWEEP_RUN_ID");
const frobRunId = requireEnv("LATLAB_FROB_RUN_ID");

const session = signedInSession(baseUrl);

test("suites v2: curves, a suite's own metric, two series compared", async (t) => {
  await t.test("a swept run is drawn as load-latency curves", async () => {
    await session.page.goto(`${baseUrl}/runs/${sweepRunId}`);
    await session.page.getByRole("heading", { name: "Load-latency curves" }).waitFor();
    const p99 = session.page.getByRole("figure", { name: "P99 against connections" });
    await p99.waitFor();
    // One dot per swept value on the one line (transport=tcp).
    await p99.locator("circle").nth(2).waitFor();
    assert.equal(await p99.locator("circle").count(), 3);
    await session.page.getByRole("figure", { name: "round trips against connections" }).waitFor();
    await screenshot(session.page, "v2-01-sweep-curves");
  });

  await t.test("a new suite's metric shows with its unit", async () => {
    await session.page.goto(`${baseUrl}/runs/${frobRunId}`);
    await session.page.getByRole("columnheader", { name: "frob rate" }).first().waitFor();
    const cell = session.page.locator('td[data-column="frobs"]').first();
    assert.match(await cell.innerText(), /frobs\/s$/);
    await session.page.getByRole("figure", { name: "frob rate against size" }).waitFor();
    await screenshot(session.page, "v2-02-new-suite-run");
  });

  await t.test("two series of the run are compared point by point", async () => {
    const form = session.page.getByRole("form", { name: "Compare two series of this run" });
    await form.getByLabel("Along").selectOption("speed");
    await form.getByLabel("baseline").selectOption("fast");
    await form.getByLabel("candidate").selectOption("slow");
    await form.getByRole("button", { name: "Compare series" }).click();
    await session.page.waitForURL(/\/compare\?/);
    await session.page.getByText(/\[speed=slow\] against/).waitFor();
    await session.page.getByRole("heading", { name: "Load-latency curves" }).waitFor();
    const p50 = session.page.getByRole("figure", { name: "P50 against size" });
    await p50.locator('circle[data-verdict="regressed"]').first().waitFor();
    assert.equal(await p50.locator('circle[data-verdict="regressed"]').count(), 3);
    await screenshot(session.page, "v2-03-compare-two-series");
  });
});
