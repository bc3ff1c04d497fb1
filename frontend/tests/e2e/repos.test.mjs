// A team's repository in Chromium, with real git, a real runner and real builds: register it
// (the lab's refusal shown on its field, nothing typed lost), open its page and its recent
// commits (of a tag, of a ref that does not exist), pick base and head, launch a try job,
// watch it on the jobs page, and read its run as a comparison: head vs base per gated metric
// and the compare page on the run's two sides. A viewer reads the same pages without a
// control to change them.
//
//   LATLAB_URL=... LATLAB_EMAIL=... LATLAB_PASSWORD=... LATLAB_REPO_URL=file:///... \
//   LATLAB_REPO_COMMITS=sha1,...,sha6 (oldest first) LATLAB_REPO_BASE=sha LATLAB_REPO_HEAD=sha \
//   LATLAB_REPO_TAG=v1.0=sha [LATLAB_VIEWER_EMAIL=... LATLAB_VIEWER_PASSWORD=...] \
//   node --test tests/e2e/repos.test.mjs
//
// backend/tests/test_repos_dashboard_e2e.py provides all of this from a throwaway stack.

import assert from "node:assert/strict";
import { test } from "node:test";

import { labUrl, newPage, requireEnv, screenshot, signedInSession, signIn, tick } from "./browser.mjs";

const baseUrl = labUrl();
const repoUrl = requireEnv("LATLAB_REPO_URL");
const commits = requireEnv("LATLAB_REPO_COMMITS").split(",");
const base = requireEnv("LATLAB_REPO_BASE");
const head = requireEnv("LATLAB_REPO_HEAD");
const [tag, tagged] = requireEnv("LATLAB_REPO_TAG").split("=");
const viewerEmail = process.env.LATLAB_VIEWER_EMAIL;
const viewerPassword = process.env.LATLAB_VIEWER_PASSWORD;
// Both commits are built once on the host, then their trials interleaved: this bounds the
// wait, not the test.
const JOB_TIMEOUT_MS = 600_000;
const NAME = "orders";
const short = (sha) => sha.slice(0, 10);

const session = signedInSession(baseUrl);

test("a repository: registered, its commits, a try job launched, watched and read", async (t) => {
  await t.test("registering: the lab's refusal on its field, then the repository", async () => {
    await session.page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Repositories" })
      .click();
    await session.page.getByRole("heading", { name: "Repositories", level: 1 }).waitFor();
    await session.page.waitForFunction(() => document.title === "Repositories · latlab");
    const form = session.page.getByRole("form", { name: "Register a repository" });
    await form.getByLabel("Name", { exact: true }).fill(NAME);
    await form.getByLabel("URL", { exact: true }).fill(repoUrl);
    await form.getByLabel("Default branch").fill("trunk");
    assert.equal(await form.getByLabel("Secret").getAttribute("type"), "password");
    await form.getByRole("button", { name: "Register", exact: true }).click();
    // The lab read the repository and found no such branch: said on the field, nothing lost.
    const refused = form.locator(".field-invalid .field-error");
    await refused.waitFor();
    assert.match(await refused.innerText(), /has no branch 'trunk'/);
    assert.equal(await form.getByLabel("Name", { exact: true }).inputValue(), NAME);
    assert.equal(await form.getByLabel("URL", { exact: true }).inputValue(), repoUrl);
    assert.equal(await session.page.locator("tr[data-repository]").count(), 0);

    await form.getByLabel("Default branch").fill("main");
    await form.getByRole("button", { name: "Register", exact: true }).click();
    await form.getByRole("status").filter({ hasText: `Repository "${NAME}" registered.` }).waitFor();
    const row = session.page.locator(`tr[data-repository="${NAME}"]`);
    await row.waitFor();
    const cells = await row.locator("th, td").allInnerTexts();
    assert.deepEqual(cells.slice(0, 5), [NAME, repoUrl, "main", "none", "off (loopback only)"]);
    assert.equal(await form.getByLabel("Name", { exact: true }).inputValue(), "");
    await screenshot(session.page, "repos-01-registered");
    await row.getByRole("link", { name: NAME }).click();
  });

  await t.test("its page lists the recent commits of a ref, newest first", async () => {
    await session.page.waitForURL(`${baseUrl}/repositories/${NAME}`);
    await session.page.getByRole("heading", { name: NAME, level: 1 }).waitFor();
    const rows = session.page.locator(".commits-table tbody tr");
    await rows.first().waitFor();
    assert.deepEqual(
      await rows.evaluateAll((items) => items.map((item) => item.dataset.sha)),
      [...commits].reverse(),
    );
    const newest = await rows.first().locator("td").allInnerTexts();
    assert.equal(newest[0], short(commits.at(-1)));
    assert.match(newest[2], /\w/); // its author
    assert.match(newest[3], /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);

    const refs = session.page.getByRole("form", { name: "Commits of a ref" });
    await refs.getByLabel("Ref").fill(tag);
    await refs.getByRole("button", { name: "Show" }).click();
    await session.page.waitForFunction(
      (sha) => document.querySelector(".commits-table tbody tr")?.dataset.sha === sha,
      tagged,
    );
    await refs.getByLabel("Ref").fill("no-such-branch");
    await refs.getByRole("button", { name: "Show" }).click();
    const missing = session.page.getByRole("alert").filter({ hasText: "Could not list the commits" });
    await missing.waitFor();
    assert.match(await missing.innerText(), /no branch, tag or commit 'no-such-branch'/);
    await refs.getByLabel("Ref").fill("");
    await refs.getByRole("button", { name: "Show" }).click();
    await rows.first().waitFor();
    await screenshot(session.page, "repos-02-commits");
  });

  let jobId;
  await t.test("base and head picked from the list launch a try job, then watched", async () => {
    await tick(session.page.getByLabel(`Base: ${short(base)}`));
    await tick(session.page.getByLabel(`Head: ${short(head)}`));
    const form = session.page.getByRole("form", { name: "Launch a try job" });
    assert.equal(await form.getByLabel("Base", { exact: true }).inputValue(), base);
    assert.equal(await form.getByLabel("Head", { exact: true }).inputValue(), head);
    await form.getByLabel("Suite").selectOption("http-order");
    await form.getByLabel("Scenario").selectOption("small");
    // Launched from a repository, http-order drives the repository's server.
    assert.equal(await form.getByLabel("server", { exact: true }).inputValue(), "repo");
    const repetitions = form.getByRole("textbox", { name: "Repetitions" });
    assert.equal(await repetitions.inputValue(), "10"); // a try job's default
    // Six a side: every gated metric gets tested at the first look (alpha / 4, Holm over
    // two; with fewer, a change the trials cannot settle is "too few trials", without an
    // interval).
    await repetitions.fill("6");
    // A minute's cap of lab time keeps the job short: no stage starts that would take it past
    // the cap.
    await form.getByRole("textbox", { name: "Cap (minutes)" }).fill("1");
    for (const [name, value] of [
      ["loads", "python"],
      ["orders", "2000"], // enough beyond the p99 for the gate to judge it
      ["connections", "4"],
      ["warmup", "20"],
    ]) {
      await form.getByRole("textbox", { name, exact: true }).fill(value);
    }
    // The API estimates the try job as the form stands: its fields check out.
    await form
      .getByRole("status", { name: "Estimate" })
      .filter({ hasText: /: 1 series × 6 trials;/ })
      .waitFor();
    await form.getByRole("button", { name: "Launch", exact: true }).click();

    // The jobs session.page, scrolled to the job: what it builds, its progress, then its run.
    await session.page.waitForURL(/\/jobs\?job=\d+$/);
    jobId = new URL(session.page.url()).searchParams.get("job");
    const row = session.page.locator(`tr.highlight[data-job-id="${jobId}"]`);
    await row.waitFor();
    assert.equal(
      await row.getByTestId("job-repo").innerText(),
      `${NAME}: head ${short(head)} against base ${short(base)}`,
    );
    await session.page
      .locator(`tr[data-job-id="${jobId}"]:is([data-status="succeeded"], [data-status="failed"],
        [data-status="cancelled"], [data-status="timed_out"])`)
      .waitFor({ timeout: JOB_TIMEOUT_MS });
    assert.equal(await row.getAttribute("data-status"), "succeeded", await row.innerText());
    // Where its stages ended: how many, the trials a side they measured, their lab time.
    assert.match(
      await row.getByTestId("job-stages").innerText(),
      /^\d stages? · \d+ trials a side · [\d.]+ min$/,
    );
    await screenshot(session.page, "repos-03-job");
    await row.getByRole("link", { name: /^Run #\d+$/ }).click();
  });

  await t.test("the try job's run reads as head against base", async () => {
    await session.page.waitForURL(/\/runs\/\d+$/);
    const runId = session.page.url().split("/").at(-1);
    const panel = session.page.getByRole("region", { name: "Head vs base" });
    await panel.waitFor();
    await panel
      .getByText(`${NAME}: head ${short(head)} against base ${short(base)}, both built`)
      .waitFor();
    const meta = session.page.locator(".meta dd").filter({ hasText: `${NAME} @ ${head}` });
    await meta.getByRole("link", { name: NAME }).waitFor();

    // One reason per gated metric of the series, each with its outcome, change, 95 %
    // interval and the smallest change the job could see.
    const table = panel.locator(".reasons-table");
    await table.getByRole("columnheader", { name: "95 % interval" }).waitFor();
    const judged = table.locator('tr[data-kind="try"], tr[data-kind="regression"]');
    for (const metric of ["p99", "throughput"]) {
      const reason = judged.and(table.locator(`tr[data-metric="${metric}"]`));
      assert.equal(await reason.count(), 1, await table.innerText());
      assert.match(
        await reason.locator('td[data-column="outcome"]').innerText(),
        /^(regressed|improved|unchanged)$/,
      );
      assert.match(await reason.locator('td[data-column="detectable"]').innerText(), /^[\d.]+%$/);
    }
    const intervals = await judged.locator('td[data-column="interval"]').allInnerTexts();
    assert.ok(
      intervals.every((text) => /^[+−±][\d.]+% to [+−±][\d.]+%$/.test(text)),
      intervals.join(" | "),
    );
    // One line says where the job's stages stopped, and at which of its three looks.
    const stages = table.locator('tr[data-kind="stages"]');
    assert.equal(await stages.count(), 1, await table.innerText());
    assert.match(await stages.innerText(), /(decided|undecided) at look \d of 4/);
    await screenshot(session.page, "repos-04-try-run");

    await panel.getByRole("link", { name: "Compare head with base" }).click();
    await session.page.waitForURL(/\/compare\?/);
    const query = new URL(session.page.url()).searchParams;
    assert.deepEqual(Object.fromEntries(query), {
      baseline: runId,
      candidate: runId,
      baseline_labels: JSON.stringify({ side: "base" }),
      candidate_labels: JSON.stringify({ side: "head" }),
    });
    // The two sides of the one run, named by their label (unchanged metrics folded away).
    const compared = session.page.locator(".compare-table");
    await compared.getByRole("columnheader", { name: "base", exact: true }).waitFor();
    await compared.getByRole("columnheader", { name: "head", exact: true }).waitFor();
    await screenshot(session.page, "repos-05-compare");
  });

  await t.test("a viewer reads the repository and its commits, and changes nothing", {
    skip: !viewerEmail,
  }, async () => {
    const viewer = await newPage(session.browser);
    try {
      await signIn(viewer.page, baseUrl, viewerEmail, viewerPassword);
      await viewer.page.goto(`${baseUrl}/repositories`);
      await viewer.page.locator(`tr[data-repository="${NAME}"]`).waitFor();
      assert.equal(await viewer.page.getByRole("form", { name: /Register/ }).count(), 0);
      await viewer.page.goto(`${baseUrl}/repositories/${NAME}`);
      await viewer.page.locator(".commits-table tbody tr").first().waitFor();
      assert.equal(await viewer.page.getByRole("radio").count(), 0);
      assert.equal(await viewer.page.getByRole("form", { name: /Launch|Run at/ }).count(), 0);
    } finally {
      await viewer.ctx.close();
    }
  });
});
