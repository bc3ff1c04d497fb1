// Projects in Chromium: an admin switches between two projects made through the API and each
// page shows the current project's runs only; a member of both opens a comparison, a profile
// comparison and a trend of the other project's runs (the session switches to it), and links
// to a run of a project they do not belong to say so; no page breaks the
// Content-Security-Policy.
//
//   LATLAB_URL=... LATLAB_EMAIL=... LATLAB_PASSWORD=... LATLAB_PROJECTS=alpha,bravo \
//   LATLAB_SUITES=alpha-suite,bravo-suite LATLAB_RUNS=1,2 LATLAB_BASELINE_RUN=3 \
//   LATLAB_MEMBER_EMAIL=... LATLAB_OUTSIDER_RUN=4 LATLAB_OUTSIDER_SUITE=charlie-suite \
//   node --test tests/e2e/projects.test.mjs
//
// LATLAB_BASELINE_RUN is a second run of the second project (same suite and scenario,
// "medium"); the member (LATLAB_MEMBER_EMAIL, same password) belongs to both projects but not
// to the project of LATLAB_OUTSIDER_RUN.
// backend/tests/test_projects_e2e.py provides all of this from a throwaway stack.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { labUrl, launchBrowser, newPage, requireEnv, screenshot, signIn } from "./browser.mjs";

const baseUrl = labUrl();
const email = requireEnv("LATLAB_EMAIL");
const password = requireEnv("LATLAB_PASSWORD");
const projects = requireEnv("LATLAB_PROJECTS").split(",");
const suites = requireEnv("LATLAB_SUITES").split(",");
const runs = requireEnv("LATLAB_RUNS").split(",");
const baselineRun = requireEnv("LATLAB_BASELINE_RUN");
const memberEmail = requireEnv("LATLAB_MEMBER_EMAIL");
const outsiderRun = requireEnv("LATLAB_OUTSIDER_RUN");
const outsiderSuite = requireEnv("LATLAB_OUTSIDER_SUITE");

let browser;
let page;
const violations = [];

before(async () => {
  browser = await launchBrowser();
  ({ page } = await newPage(browser));
  page.on("console", (message) => {
    if (/Content.Security.Policy/i.test(message.text())) violations.push(message.text());
  });
  await signIn(page, baseUrl, email, password);
});

after(async () => {
  await browser?.close();
});

async function switchTo(slug, on = page) {
  await on.getByRole("combobox", { name: "Project" }).selectOption(slug);
  await shows(slug, on);
}

/** The session shows this project (the switcher says so). */
async function shows(slug, on = page) {
  await on.waitForFunction(
    (wanted) => document.querySelector('select[aria-label="Project"]')?.value === wanted,
    slug,
  );
}

test("the project switcher shows each project's runs and nothing of the other", async () => {
  for (const [index, slug] of projects.entries()) {
    await switchTo(slug);
    await page.getByRole("link", { name: "Runs", exact: true }).click();
    await page.getByRole("heading", { name: "Runs", level: 1 }).waitFor();
    const table = page.getByRole("table");
    await table.getByText(suites[index], { exact: true }).first().waitFor();
    const other = suites[1 - index];
    assert.equal(await table.getByText(other, { exact: true }).count(), 0, `${other} shown`);
    await screenshot(page, `projects-${slug}-runs`);
  }
});

test("a run's URL opened in another project switches to the run's project", async () => {
  await switchTo(projects[0]);
  await page.goto(`${baseUrl}/runs/${runs[1]}`);
  await page.getByRole("heading", { name: new RegExp(suites[1]), level: 1 }).waitFor();
  await page.waitForFunction(
    (wanted) => document.querySelector('select[aria-label="Project"]')?.value === wanted,
    projects[1],
  );
  await page.waitForFunction((run) => document.title.startsWith(`Run #${run} `), runs[1]);
  await screenshot(page, "projects-shared-run-url");
});

test("the settings page shows the current project and every project to an admin", async () => {
  await switchTo(projects[0]);
  await page.getByRole("link", { name: "Settings" }).click();
  await page.getByRole("heading", { name: "Project", level: 2, exact: true }).waitFor();
  await page.locator(`tr[data-project="${projects[1]}"]`).waitFor();
  await screenshot(page, "projects-settings");
  assert.deepEqual(violations, []);
});

// A member of alpha and bravo (not of charlie), in a browser context of their own.
let member;

async function memberPage() {
  if (!member) {
    ({ page: member } = await newPage(browser));
    member.on("console", (message) => {
      if (/Content.Security.Policy/i.test(message.text())) violations.push(message.text());
    });
    await signIn(member, baseUrl, memberEmail, password);
  }
  return member;
}

const query = (values) => new URLSearchParams(values).toString();
const nowhere = (run) => `Run #${run} is not in this project, nor in any project you belong to.`;

test("a comparison of another project's runs switches to their project", async () => {
  const on = await memberPage();
  await switchTo(projects[0], on);
  await on.goto(`${baseUrl}/compare?${query({ baseline: baselineRun, candidate: runs[1] })}`);
  await shows(projects[1], on);
  await on.getByText(`Run #${runs[1]} against #${baselineRun}:`).waitFor();
  await on.getByRole("heading", { name: "Metrics", level: 2 }).waitFor();
  await screenshot(on, "projects-shared-compare-url");
  // Choosing the first project again on that page stays there: the page names the runs'
  // project rather than switching back.
  await switchTo(projects[0], on);
  await on
    .getByText(`Runs #${baselineRun} and #${runs[1]} are in project ${projects[1]}, not here`)
    .waitFor();
  await on.waitForTimeout(500);
  await shows(projects[0], on);

  await switchTo(projects[0], on);
  await on.goto(
    `${baseUrl}/compare/profiles?${query({ baseline: baselineRun, candidate: runs[1] })}`,
  );
  await shows(projects[1], on);
  await on.getByText(`Run #${runs[1]} against #${baselineRun}:`).waitFor();
  await on.getByText("No CPU profiles to compare").waitFor();
});

test("a trend naming another project's run switches to its project and draws it", async () => {
  const on = await memberPage();
  await switchTo(projects[0], on);
  // As a run's page and an alert link to it (lib/trends trendHref).
  const series = JSON.stringify({ client: "rust" });
  const trend = { suite: suites[1], scenario: "medium", metric: "p99", series, run: runs[1] };
  await on.goto(`${baseUrl}/trends?${query(trend)}`);
  await shows(projects[1], on);
  await on.getByTestId("trend-branch").getByText("main", { exact: true }).waitFor();
  await on.getByText(/Every point \(2 runs\)/).waitFor();
  // The run named is one of the points (their table is folded away: attached, not shown).
  await on.locator(`details.points a[href="/runs/${runs[1]}"]`).waitFor({ state: "attached" });
  await screenshot(on, "projects-shared-trend-url");
});

test("links to a run of a project the member does not belong to say so", async () => {
  const on = await memberPage();
  await switchTo(projects[0], on);
  const links = [
    `/runs/${outsiderRun}`,
    `/compare?${query({ baseline: runs[0], candidate: outsiderRun })}`,
    `/compare/profiles?${query({ baseline: runs[0], candidate: outsiderRun })}`,
    `/trends?${query({ suite: outsiderSuite, scenario: "medium", run: outsiderRun })}`,
  ];
  for (const link of links) {
    await on.goto(`${baseUrl}${link}`);
    await on.getByText(nowhere(outsiderRun), { exact: true }).waitFor();
    assert.equal(
      await on.getByText(`no run ${outsiderRun}`, { exact: true }).count(),
      0,
      `${link}: a bare "no run"`,
    );
    // Still in the project it was opened in.
    await shows(projects[0], on);
  }
  await screenshot(on, "projects-run-of-no-project-of-yours");
  assert.deepEqual(violations, []);
});
