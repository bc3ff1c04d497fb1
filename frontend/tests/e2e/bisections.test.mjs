// A bisection the lab started itself, read in Chromium: the confirmed regression's alert links
// its bisection; the bisection's page names the culprit with its change beside its parent and
// lists each step with what it measured; the suspected run's banner says how the search
// ended; and the same question asked again from the form opens the same bisection (nothing
// new launched).
//
//   LATLAB_URL=... LATLAB_EMAIL=... LATLAB_PASSWORD=... LATLAB_BISECTION_ID=... \
//   LATLAB_ALERT_ID=... LATLAB_RUN_ID=... LATLAB_CULPRIT=sha LATLAB_GOOD=sha LATLAB_BAD=sha \
//   node --test tests/e2e/bisections.test.mjs
//
// backend/tests/test_bisections_e2e.py provides all of this from a real runner's search.

import assert from "node:assert/strict";
import { test } from "node:test";

import { labUrl, requireEnv, screenshot, signedInSession } from "./browser.mjs";

const baseUrl = labUrl();
const bisectionId = requireEnv("LATLAB_BISECTION_ID");
const alertId = requireEnv("LATLAB_ALERT_ID");
const runId = requireEnv("LATLAB_RUN_ID");
const culprit = requireEnv("LATLAB_CULPRIT");
const good = requireEnv("LATLAB_GOOD");
const bad = requireEnv("LATLAB_BAD");
const short = (sha) => sha.slice(0, 10);

const session = signedInSession(baseUrl);

test("a regression searched to its commit, read in the dashboard", async (t) => {
  await t.test("the alert links its bisection", async () => {
    await session.page.goto(`${baseUrl}/alerts`);
    const row = session.page.locator(`tr[data-alert-id="${alertId}"]`);
    const link = row.getByRole("link", { name: `Bisection #${bisectionId}` });
    await link.waitFor();
    await link.click();
    await session.page.waitForURL(`**/bisections/${bisectionId}`);
  });

  await t.test("the bisection's page: the culprit, its change, each step", async () => {
    await session.page.getByRole("heading", { name: `Bisection #${bisectionId}`, level: 1 }).waitFor();
    assert.equal(
      await session.page.getByTestId("bisection-status").getAttribute("data-status"),
      "found",
    );
    const culprits = session.page.getByTestId("culprit");
    assert.equal(await culprits.count(), 1);
    const sha = culprits.getByTestId("culprit-sha");
    assert.equal(await sha.getAttribute("title"), culprit);
    assert.match(await sha.innerText(), new RegExp(`^${short(culprit)}`));
    assert.match(await culprits.innerText(), /ns of CPU per order, planted/);
    assert.match(
      await culprits.getByTestId("culprit-change").innerText(),
      /^p99 \+[\d.]+ ?%.*measured beside its parent/,
    );
    assert.match(
      await session.page.getByTestId("bisection-message").innerText(),
      new RegExp(`^culprit: ${short(culprit)}`),
    );
    // Steps: the ends first, regressed; every step links its job.
    const steps = session.page.locator("table.bisect-steps tbody tr");
    assert.ok((await steps.count()) >= 2, "at least the ends and the culprit's step");
    assert.equal(await steps.first().getAttribute("data-kind"), "ends");
    assert.equal(await steps.first().getAttribute("data-outcome"), "regressed");
    for (const step of await steps.all()) {
      await step.getByRole("link", { name: /^Job #\d+$/ }).waitFor();
      assert.match(await step.locator('[data-column="change"]').innerText(), /%/);
    }
    await screenshot(session.page, "bisection-found");
    // The culprit's own comparison: head (the culprit) against base (its parent).
    await culprits.getByRole("link", { name: "Compare with its parent" }).click();
    await session.page.waitForURL(/\/compare\?/);
    await session.page.getByRole("heading", { level: 1 }).first().waitFor();
  });

  await t.test("the suspected run's banner says how the search ended", async () => {
    await session.page.goto(`${baseUrl}/runs/${runId}`);
    const line = session.page.getByTestId("alert-bisection");
    await line.waitFor();
    assert.match(await line.innerText(), new RegExp(`Bisection #${bisectionId}`));
    assert.match(await line.innerText(), new RegExp(`culprit: ${short(culprit)}`));
    await line.getByRole("link", { name: `Bisection #${bisectionId}` }).click();
    await session.page.waitForURL(`**/bisections/${bisectionId}`);
  });

  await t.test("the same question from the form opens the same bisection", async () => {
    const asked = await session.page.evaluate(async (id) => {
      const answer = await fetch(`/api/v1/bisections/${id}`, { credentials: "same-origin" });
      return answer.json();
    }, bisectionId);
    const series = Object.entries(asked.series)
      .map(([name, value]) => `${name}=${String(value)}`)
      .join(", ");
    await session.page.goto(`${baseUrl}/bisections?repo=orders&good=${good}&bad=${bad}`);
    const form = session.page.getByRole("form", { name: "Find the commit" });
    await form.getByLabel("Good", { exact: true }).waitFor();
    assert.equal(await form.getByLabel("Good", { exact: true }).inputValue(), good);
    assert.equal(await form.getByLabel("Bad", { exact: true }).inputValue(), bad);
    // The suite is the form's default, a list once the online hosts' catalogue has loaded.
    const suite = form.getByRole("combobox", { name: "Suite", exact: true });
    await suite.waitFor();
    assert.equal(await suite.inputValue(), "http-order");
    const scenario = form.getByRole("combobox", { name: "Scenario", exact: true });
    await scenario.selectOption(asked.scenario);
    await form.getByLabel("Series", { exact: true }).fill(series);
    await form.getByLabel("Params", { exact: true }).fill(JSON.stringify(asked.params));
    await form.getByRole("button", { name: "Start the bisection" }).click();
    await session.page.waitForURL(`**/bisections/${bisectionId}`);
    await session.page.getByText("The same question was asked before: this is its bisection.").waitFor();
    await screenshot(session.page, "bisection-asked-again");
  });
});
