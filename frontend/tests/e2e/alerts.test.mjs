// Alerts triaged in Chromium: the alerts of two commits under one header each (commit, branch,
// count); an alert links to its run and to its trend (its point drawn); one alert acknowledged
// with a note (shown, and still there after a reload) and given to a user of the project (then
// found by the assignee filter); one commit's alerts selected at once and resolved together.
//
//   LATLAB_URL=... LATLAB_EMAIL=... LATLAB_PASSWORD=... LATLAB_FEATURE_RUN_ID=4 \
//   LATLAB_MAIN_RUN_ID=5 LATLAB_ASSIGNEE=grace@lab.test LATLAB_NOTE="..." \
//   node --test tests/e2e/alerts.test.mjs
//
// backend/tests/test_alerts_triage_e2e.py provides all of this from a throwaway stack: two SLA
// rules (p50, p99) breached by the two series of http-order runs: the run of commit aaaa111 on
// the branch `feature` (scenario medium), the run of commit bbbb222 on main (scenario stress).

import assert from "node:assert/strict";
import { test } from "node:test";

import { labUrl, requireEnv, screenshot, signedInSession, tick } from "./browser.mjs";

const baseUrl = labUrl();
const featureRunId = requireEnv("LATLAB_FEATURE_RUN_ID");
const mainRunId = requireEnv("LATLAB_MAIN_RUN_ID");
const assignee = requireEnv("LATLAB_ASSIGNEE");
const note = requireEnv("LATLAB_NOTE");
const email = requireEnv("LATLAB_EMAIL");

const session = signedInSession(baseUrl);

function group(commit) {
  return session.page.locator(`tbody[data-commit="${commit}"]`);
}

function rows(commit) {
  return group(commit).locator("tr[data-alert-id]");
}

async function openAlerts() {
  await session.page.goto(`${baseUrl}/alerts`);
  await rows("aaaa111").first().waitFor();
  await session.page.waitForFunction(() => document.title === "Alerts · latlab");
}

test("alerts: grouped by commit, linked, noted, assigned and resolved in bulk", async (t) => {
  await t.test("the alerts of each commit stand under its header", async () => {
    await openAlerts();
    const feature = group("aaaa111").locator("tr.alert-group");
    assert.match(await feature.innerText(), /Commit aaaa111 on feature · 4 alerts/);
    const main = group("bbbb222").locator("tr.alert-group");
    assert.match(await main.innerText(), /Commit bbbb222 on main · 4 alerts/);
    assert.equal(await rows("aaaa111").count(), 4);
    assert.equal(await rows("bbbb222").count(), 4);
    await screenshot(session.page, "alerts-01-by-commit");
  });

  await t.test("an alert links to its run and to its trend", async () => {
    const { page } = session;
    const row = rows("aaaa111").filter({ hasText: "p99" }).first();
    const run = row.getByRole("link", { name: `Run #${featureRunId}` });
    assert.equal(await run.getAttribute("href"), `/runs/${featureRunId}`);
    const trendLink = row.getByRole("link", { name: "Trend" });
    const trend = new URL(await trendLink.getAttribute("href"), baseUrl);
    assert.equal(trend.pathname, "/trends");
    assert.deepEqual(Object.fromEntries(trend.searchParams), {
      suite: "http-order",
      scenario: "medium",
      metric: "p99",
      series: JSON.stringify({ client: trendClient(await row.innerText()) }),
      run: featureRunId,
    });

    await trendLink.click();
    const chart = page.getByRole("figure", { name: "Metric over time" });
    await chart.locator(`circle.trend-point[data-run-id="${featureRunId}"]`).waitFor();
    await page.waitForFunction(() => document.title === "Trends · latlab");
    await screenshot(page, "alerts-02-trend");

    await openAlerts();
    await rows("aaaa111").first().getByRole("link", { name: `Run #${featureRunId}` }).click();
    await page.waitForURL(`${baseUrl}/runs/${featureRunId}`);
    await page.waitForFunction(
      (id) => document.title === `Run #${id} · http-order / medium · latlab`,
      featureRunId,
    );
  });

  await t.test("an alert is acknowledged with a note, and given to someone", async () => {
    const { page } = session;
    await openAlerts();
    const row = rows("bbbb222").first();
    const alertId = await row.getAttribute("data-alert-id");
    await tick(row.getByRole("checkbox", { name: `Select alert #${alertId}` }));
    const bar = page.getByRole("group", { name: "Selected alerts" });
    assert.match(await bar.innerText(), /1 selected/);
    await bar.getByLabel("Note").fill(note);
    await bar.getByRole("button", { name: "Acknowledge selected (1)" }).click();
    const acknowledged = page.locator(`tr[data-alert-id="${alertId}"]`);
    await acknowledged.getByText("acknowledged", { exact: true }).waitFor();
    assert.equal(await acknowledged.getByTestId("alert-note").innerText(), note);
    assert.match(
      await acknowledged.getByTestId("alert-acknowledged").innerText(),
      new RegExp(`^Acknowledged by ${email.replace(/[.]/g, "\\.")}, .+: `),
    );
    await bar.waitFor({ state: "detached" });

    const picker = acknowledged.getByRole("combobox", { name: `Assignee of alert #${alertId}` });
    const assigned = page.waitForResponse((answer) =>
      answer.url().endsWith(`/alerts/${alertId}/assignee`),
    );
    await picker.selectOption({ label: assignee });
    assert.equal((await assigned).status(), 200);

    await page.reload();
    const again = page.locator(`tr[data-alert-id="${alertId}"]`);
    await again.getByTestId("alert-note").waitFor();
    assert.equal(await again.getByTestId("alert-note").innerText(), note);
    const chosen = again.getByRole("combobox", { name: `Assignee of alert #${alertId}` });
    assert.equal(await chosen.locator("option:checked").innerText(), assignee);
    await screenshot(page, "alerts-03-noted-and-assigned");

    const filters = page.getByRole("group", { name: "Filter alerts" });
    await filters.getByLabel("Assignee").selectOption({ label: assignee });
    await page.waitForURL(/assignee=\d+/);
    await page.locator("tr[data-alert-id]").first().waitFor();
    await page.waitForFunction(() => document.querySelectorAll("tr[data-alert-id]").length === 1);
    assert.equal(await page.locator("tr[data-alert-id]").getAttribute("data-alert-id"), alertId);
  });

  await t.test("a row's Acknowledge takes a note of its own", async () => {
    const { page } = session;
    await openAlerts();
    const row = rows("aaaa111").first();
    const alertId = await row.getAttribute("data-alert-id");
    await row.getByRole("button", { name: "Acknowledge" }).click();
    await row.getByLabel(`Note for alert #${alertId}`).fill(`row: ${note}`);
    await row.getByRole("button", { name: "Acknowledge" }).click();
    const acknowledged = page.locator(`tr[data-alert-id="${alertId}"]`);
    await acknowledged.getByText("acknowledged", { exact: true }).waitFor();
    assert.equal(await acknowledged.getByTestId("alert-note").innerText(), `row: ${note}`);
  });

  await t.test("one commit's alerts are resolved at once", async () => {
    const { page } = session;
    await openAlerts();
    await tick(group("aaaa111")
      .getByRole("checkbox", { name: "Select the alerts of commit aaaa111" }));
    const bar = page.getByRole("group", { name: "Selected alerts" });
    assert.match(await bar.innerText(), /4 selected/);
    await bar.getByRole("button", { name: "Resolve selected (4)" }).click();
    await bar.waitFor({ state: "detached" });
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('tbody[data-commit="aaaa111"] tr[data-alert-id]')].every(
          (row) => row.textContent.includes("resolved by"),
        ),
    );
    assert.equal(await group("aaaa111").getByText("resolved", { exact: true }).count(), 4);
    const openOnMain = rows("bbbb222").getByText("open", { exact: true });
    assert.equal(await openOnMain.count(), 3, "the other commit's alerts are untouched");
    await screenshot(page, "alerts-04-commit-resolved");
  });
});

/** The client label of a row ("client=go · p99 · sla"). */
function trendClient(text) {
  const found = /client=(\w+)/.exec(text);
  assert.ok(found, text);
  return found[1];
}
