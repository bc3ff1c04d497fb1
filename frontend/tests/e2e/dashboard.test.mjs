// End-to-end, against a real latlab (the api serving frontend/dist, a runner, an ingest worker)
// in Debian's Chromium: sign in; launch an echo job and watch it succeed; open its run; compare
// two submitted runs and see the regression; acknowledge its alert; create an SLA rule and an
// API token (shown once); a viewer sees no write controls. One screenshot per page.
//
//   LATLAB_URL=http://127.0.0.1:8000 LATLAB_EMAIL=... LATLAB_PASSWORD=... \
//   LATLAB_BASELINE_RUN_ID=1 LATLAB_CANDIDATE_RUN_ID=2 LATLAB_HOST_NAME=lab-07 \
//   LATLAB_TREND_SCENARIO=large \
//   [LATLAB_VIEWER_EMAIL=... LATLAB_VIEWER_PASSWORD=...] npm run e2e
//
// backend/tests/test_dashboard_e2e.py provides all of this from a throwaway stack.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import {
  labUrl,
  launchBrowser,
  newPage as openPage,
  requireEnv,
  screenshot,
  signIn as signInAt,
  tick,
} from "./browser.mjs";

const baseUrl = labUrl();
const email = requireEnv("LATLAB_EMAIL");
const password = requireEnv("LATLAB_PASSWORD");
const baselineId = requireEnv("LATLAB_BASELINE_RUN_ID");
const candidateId = requireEnv("LATLAB_CANDIDATE_RUN_ID");
const hostName = requireEnv("LATLAB_HOST_NAME");
// A scenario of http-order whose p99 history has a step change.
const trendScenario = requireEnv("LATLAB_TREND_SCENARIO");
const honestyId = requireEnv("LATLAB_HONESTY_RUN_ID");
const viewerEmail = process.env.LATLAB_VIEWER_EMAIL;
const viewerPassword = process.env.LATLAB_VIEWER_PASSWORD;
// A job builds its suite on first use and then measures; this bounds the wait, not the test.
const JOB_TIMEOUT_MS = 300_000;

let browser;
let page;

const newPage = () => openPage(browser);
const signIn = (target, user, secret) => signInAt(target, baseUrl, user, secret);

before(async () => {
  browser = await launchBrowser();
  ({ page } = await newPage());
});

after(async () => {
  await browser?.close();
});

test("dashboard: the acceptance walk-through", async (t) => {
  await t.test("an anonymous visitor is sent to /login", async () => {
    await page.goto(baseUrl);
    await page.waitForURL(/\/login$/);
    await page.getByLabel("Email").waitFor();
    await screenshot(page, "01-login");
  });

  await t.test("signing in leads to the overview", async () => {
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${baseUrl}/`);
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    const alerts = page.getByRole("region", { name: "Open alerts" });
    assert.match(await alerts.locator(".big-number").innerText(), /^\d+ open$/);
    const latest = page.getByRole("region", { name: "Latest run per suite and scenario" });
    const medium = latest.locator('tr[data-suite="http-order"][data-scenario="medium"]');
    await medium.getByText("fail", { exact: true }).waitFor();
    // Failing first: the comparison's candidate failed its gate.
    assert.equal(await latest.locator("tbody tr").first().getAttribute("class"), "failing");
    await page.getByRole("region", { name: "Hosts" }).getByText(hostName).waitFor();
    await screenshot(page, "02-overview");
  });

  await t.test(
    "the hosts page shows the runner's host online, with its tuning checks",
    async () => {
      await page
        .getByRole("navigation", { name: "Main" })
        .getByRole("link", { name: "Hosts" })
        .click();
      const card = page.locator(`article[data-host="${hostName}"]`);
      await card.getByText("online", { exact: true }).waitFor();
      await card.getByText(/^Tuning checks:/).click();
      await card.getByRole("columnheader", { name: "Recommended" }).waitFor();
      await screenshot(page, "03-hosts");

      // An admin invites a machine: the join command, with its one-time code, shown once.
      const invite = page.getByRole("form", { name: "Invite a host" });
      await invite.getByLabel("Name").fill("bad name!");
      await invite.getByRole("button", { name: "Invite" }).click();
      await invite.getByText("Letters, digits, . _ - (it names the host's queue)").waitFor();
      await invite.getByLabel("Name").fill("lab-invited");
      await invite.getByLabel("Tags").fill("x86, tuned");
      await invite.getByRole("button", { name: "Invite" }).click();
      const joining = page.getByRole("status", { name: "Join command" });
      const command = (await joining.locator("pre").innerText()).trim();
      assert.match(
        command,
        new RegExp(`^scripts/join-host.sh ${baseUrl} [2-9A-Z]{5}(-[2-9A-Z]{5}){3}$`),
      );
      assert.equal(await invite.getByLabel("Name").inputValue(), "");
    },
  );

  let runHref;
  await t.test("an echo job launched from the jobs page runs to success", async () => {
    await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Jobs" })
      .click();
    const form = page.getByRole("form", { name: "Launch a job" });
    // Each page names its browser tab.
    await page.waitForFunction(() => document.title === "Jobs · latlab");
    // A suite opens at its lightest scenario (http-order's first is its long `steady`) and the
    // lab's default repetitions.
    await form.getByLabel("Suite").selectOption("http-order");
    assert.equal(await form.getByLabel("Scenario").inputValue(), "small");
    assert.equal(await form.getByRole("textbox", { name: "Repetitions" }).inputValue(), "5");
    await form.getByLabel("Suite").selectOption("echo");
    await form.getByLabel("Scenario").selectOption("default");

    // The schema's bounds are checked before anything is sent.
    const count = form.getByRole("textbox", { name: "count", exact: true });
    await count.fill("-1");
    await form.getByRole("button", { name: "Launch" }).click();
    await form.getByText("must be at least 0").waitFor();
    // No estimate for a form that does not check out (the last one would be stale).
    const estimate = form.getByRole("status", { name: "Estimate" });
    assert.equal((await estimate.innerText()).trim(), "");
    await count.fill("");

    // The API estimates the job as the form changes; one too long for any timeout says so.
    await estimate
      .filter({ hasText: /^About \d+ s: 1 series × 5 trials; timeout 15 min$/ })
      .waitFor();
    const duration = form.getByRole("textbox", { name: "duration_s", exact: true });
    const repetitions = form.getByRole("textbox", { name: "Repetitions" });
    await count.fill("0");
    await duration.fill("3600");
    await repetitions.fill("100");
    await estimate
      .filter({ hasText: /^Cannot run as it stands: .*about 100 h \(1 series x 100 trials/ })
      .waitFor();
    // Repetitions out of range: said as typed, no stale estimate, Launch held.
    const launch = form.getByRole("button", { name: "Launch" });
    for (const bad of ["100000", "0", "-3"]) {
      await repetitions.fill(bad);
      await estimate.filter({ hasText: "No estimate until the fields marked above are fixed." }).waitFor();
      await form.getByText("a whole number from 1 to 100").waitFor();
      assert.equal(await launch.isDisabled(), true, bad);
    }
    await duration.fill("");
    await repetitions.fill("1");
    assert.equal(await launch.isDisabled(), false);

    await count.fill("2000");
    await form.getByRole("textbox", { name: "warmup", exact: true }).fill("100");
    await form.getByRole("button", { name: "Launch" }).click();
    const notice = page.getByRole("status").filter({ hasText: /Launched job/ });
    const jobId = /#(\d+)/.exec(await notice.innerText())[1];
    const row = page.locator(`tr[data-job-id="${jobId}"]`);
    await row.waitFor();
    await page
      .locator(`tr[data-job-id="${jobId}"][data-status="succeeded"]`)
      .waitFor({ timeout: JOB_TIMEOUT_MS });
    assert.equal(await row.getByRole("progressbar").getAttribute("aria-valuenow"), "100");
    const runLink = row.getByRole("link", { name: /^Run #\d+$/ });
    runHref = await runLink.getAttribute("href");
    await screenshot(page, "04-jobs");
    await runLink.click();
  });

  await t.test("the job's run shows its summary, spectrum, trials and host", async () => {
    await page.waitForURL(`${baseUrl}${runHref}`);
    await page.getByRole("heading", { name: /^echo \/ default$/ }).waitFor();
    await page.waitForFunction(() =>
      /^Run #\d+ · echo \/ default · latlab$/.test(document.title),
    );
    const p99 = page.locator('.summary-table td[data-column="p99"]').first();
    await p99.waitFor();
    assert.match((await p99.innerText()).trim(), /^\d+(\.\d+)? (ns|µs|ms|s)( ⚠)?$/);
    const throughput = page.locator('.summary-table td[data-column="throughput"]').first();
    assert.match((await throughput.innerText()).trim(), /^\d+(\.\d+)?k? req\/s$/);
    const curve = page
      .getByRole("figure", { name: "Latency by percentile" })
      .locator("path.recharts-line-curve")
      .first();
    await curve.waitFor();
    assert.ok(((await curve.getAttribute("d")) ?? "").length > 10, "the spectrum line has a path");
    await page.getByRole("heading", { name: "Trials" }).waitFor();
    await page.getByRole("heading", { name: `Fingerprint of ${hostName}` }).waitFor();
    await screenshot(page, "05-run");

    // Its job link lands on the jobs page scrolled to the job, below the launch form.
    await page.getByRole("link", { name: /^job #\d+$/ }).click();
    await page.locator("tr.highlight[data-job-id]").waitFor();
    await page.waitForFunction(() => {
      const box = document.querySelector("tr.highlight[data-job-id]")?.getBoundingClientRect();
      return box !== undefined && box.top >= 0 && box.bottom <= window.innerHeight;
    });
  });

  await t.test("two runs picked on the runs page open their comparison", async () => {
    await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Runs" })
      .click();
    await page.getByRole("heading", { name: "Runs", level: 1 }).waitFor();
    await tick(page.getByLabel(`Pick run #${baselineId} to compare`));
    await tick(page.getByLabel(`Pick run #${candidateId} to compare`));
    await screenshot(page, "06-runs");
    await page.getByRole("button", { name: "Compare", exact: true }).click();
    await page.waitForURL(`${baseUrl}/compare?baseline=${baselineId}&candidate=${candidateId}`);
  });

  await t.test("the comparison says p99 regressed, with its evidence", async () => {
    const p99 = page.locator('.compare-table tr[data-metric="p99"]');
    await p99.getByText("regressed", { exact: true }).waitFor();
    assert.match(await p99.locator("td").nth(3).innerText(), /^\+\d+(\.\d+)?%$/);
    // The evidence shows on keyboard focus, not only on hover.
    await p99.locator(".tooltip").focus();
    const tip = p99.getByRole("tooltip");
    await tip.waitFor({ state: "visible" });
    assert.match(await tip.innerText(), /\w/);
    await page
      .getByRole("figure", { name: "Baseline and candidate latency by percentile" })
      .locator("path.recharts-line-curve")
      .first()
      .waitFor();
    await screenshot(page, "07-compare");
  });

  await t.test("a disturbed trial says why it is left out of every verdict", async () => {
    await page.goto(`${baseUrl}/runs/${candidateId}`);
    const list = page.getByRole("list", { name: "Trials left out of the verdict" });
    await list.waitFor();
    assert.match(
      await list.innerText(),
      /trial 5, left out of every verdict: other processes used 1\.40 CPUs during it/,
    );
    assert.equal(await page.locator(".trials-table tr.disturbed").count(), 1);
  });

  await t.test(
    "a run's page says what was not compared, what failed and what the harness printed",
    async () => {
      await page.goto(`${baseUrl}/runs/${honestyId}`);
      const failed = page.getByRole("note", { name: "Failed operations" });
      await failed.waitFor();
      assert.match(await failed.innerText(), /client=k6: 950 of 1,000 \(95\.0 %\), k6 http_req_failed/);
      const banner = page.getByRole("region", { name: "Run at a glance" });
      assert.match(await banner.innerText(), /Failed its CI gate/);
      assert.match(await banner.innerText(), /k6 printed no p\(99\)/);
      const reasons = await page.locator(".reasons-table").innerText();
      assert.match(reasons, /not compared[\s\S]*client=k6[\s\S]*new: the baseline, run/);
      assert.match(reasons, /not compared[\s\S]*client=rust[\s\S]*vanished/);
      assert.match(reasons, /errors[\s\S]*950 of 1,000 operations failed \(95 %\)/);
      assert.match(
        await page.getByLabel("The machine and build the harness said it ran on").innerText(),
        /cpu_model="AMD EPYC 7B13"/,
      );
    },
  );

  await t.test("the trend marks its change point and a point opens its run", async () => {
    await page.goto(`${baseUrl}/trends?suite=http-order&scenario=${trendScenario}&metric=p99`);
    const chart = page.getByRole("figure", { name: "Metric over time" });
    await chart.locator("path.recharts-line-curve").first().waitFor();
    const change = page.getByRole("table", { name: "Change points" }).getByRole("link").first();
    await change.waitFor();
    const changeRunId = (await change.innerText()).replace("#", "");
    await screenshot(page, "08-trends");
    await chart.locator(`circle.trend-point[data-run-id="${changeRunId}"]`).first().click();
    await page.waitForURL(`${baseUrl}/runs/${changeRunId}`);
    await page.getByRole("heading", { name: "CI verdict" }).waitFor();
  });

  await t.test("the run page downloads its summary and a trial's histogram", async () => {
    const downloads = page.getByRole("group", { name: "Downloads" });
    for (const [name, start] of [
      ["Summary (CSV)", "run_id,series_id,"],
      ["Histogram (.hlog)", "#[Histogram log format version 1.3]"],
    ]) {
      const href = await downloads.getByRole("link", { name }).getAttribute("href");
      const answer = await page.request.get(`${baseUrl}${href}`);
      assert.equal(answer.status(), 200);
      assert.ok((await answer.text()).startsWith(start), name);
    }
  });

  await t.test(
    "the regression's alert links to the comparison and can be acknowledged",
    async () => {
      await page
        .getByRole("navigation", { name: "Main" })
        .getByRole("link", { name: "Alerts" })
        .click();
      await page.getByLabel("State").selectOption("open");
      await page.waitForURL(/state=open/);
      const row = page
        .locator("tr[data-alert-id]")
        .filter({ hasText: "http-order / medium" })
        .filter({ hasText: "regression" })
        .first();
      await row.waitFor();
      const link = row.getByRole("link", { name: "Comparison" });
      assert.equal(
        await link.getAttribute("href"),
        `/compare?baseline=${baselineId}&candidate=${candidateId}`,
      );
      const alertId = await row.getAttribute("data-alert-id");
      await row.getByRole("button", { name: "Acknowledge" }).click(); // a note may follow
      // The note's form replaces the button a render later: its own button sends it.
      await row.locator("form.ack-form").getByRole("button", { name: "Acknowledge" }).click();
      await page.getByLabel("State").selectOption("");
      await page.waitForURL(/\/alerts$/);
      const acknowledged = page.locator(`tr[data-alert-id="${alertId}"]`);
      await acknowledged.getByText("acknowledged", { exact: true }).waitFor();
      await acknowledged.getByRole("button", { name: "Resolve" }).waitFor();
      await screenshot(page, "09-alerts");
    },
  );

  await t.test("settings: an SLA rule from a template, and a token shown once", async () => {
    await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Settings" })
      .click();
    const ruleForm = page.getByRole("form", { name: "New SLA rule" });
    await ruleForm
      .getByLabel("Start from a template")
      .selectOption({ label: "http-order: P99 over 2 ms" });
    await ruleForm.getByLabel("Name").fill("e2e: P99 over 2 ms");
    await ruleForm.getByRole("button", { name: "Create rule" }).click();
    const rule = page.locator(".rules-table tr").filter({ hasText: "e2e: P99 over 2 ms" });
    await rule.getByText("breach if p99 > 2 ms").waitFor();

    const tokenForm = page.getByRole("form", { name: "New API token" });
    await tokenForm.getByLabel("Token name").fill("e2e-ci");
    await tokenForm.getByRole("button", { name: "Create token" }).click();
    const secret = page.getByTestId("new-token");
    await secret.waitFor();
    const token = (await secret.innerText()).trim();
    assert.ok(token.length >= 20, "the token is shown");
    await page.locator(".tokens-table tr").filter({ hasText: "e2e-ci" }).waitFor();
    await screenshot(page, "10-settings");

    await page.reload();
    await page.locator(".tokens-table tr").filter({ hasText: "e2e-ci" }).waitFor();
    assert.equal(await page.getByText(token).count(), 0, "the token is never shown again");
  });

  await t.test("an admin revokes the host: its key is forgotten, it goes offline", async () => {
    await page.goto(`${baseUrl}/hosts`);
    const card = page.locator(`article[data-host="${hostName}"]`);
    await card.getByRole("button", { name: `Revoke host ${hostName}` }).click();
    await card.getByRole("button", { name: "Yes, revoke" }).click();
    await card.getByText("not enrolled", { exact: true }).waitFor();
    await card.getByText("offline", { exact: true }).waitFor();
    assert.equal(await card.getByRole("button", { name: /^Revoke/ }).count(), 0);
  });

  await t.test("a viewer sees no write controls", { skip: !viewerEmail }, async () => {
    const viewer = await newPage();
    try {
      await signIn(viewer.page, viewerEmail, viewerPassword);
      await viewer.page.goto(`${baseUrl}/jobs`);
      await viewer.page.locator("tr[data-job-id]").first().waitFor();
      assert.equal(await viewer.page.getByRole("form", { name: "Launch a job" }).count(), 0);
      assert.equal(await viewer.page.getByRole("button", { name: /^Cancel/ }).count(), 0);
      await viewer.page.goto(`${baseUrl}/alerts`);
      await viewer.page.locator("tr[data-alert-id]").first().waitFor();
      assert.equal(
        await viewer.page.getByRole("button", { name: /Acknowledge|Resolve/ }).count(),
        0,
      );
      await viewer.page.goto(`${baseUrl}/settings`);
      await viewer.page.locator(".rules-table").waitFor();
      assert.equal(
        await viewer.page.getByRole("button", { name: /Create|Delete|Revoke|Send a test/ }).count(),
        0,
      );
      await screenshot(viewer.page, "11-settings-viewer");
    } finally {
      await viewer.ctx.close();
    }
  });
});
