// Projects in Chromium: an admin switches between two projects made through the API and each
// page shows the current project's runs only; no page breaks the Content-Security-Policy.
//
//   LATLAB_URL=... LATLAB_EMAIL=... LATLAB_PASSWORD=... LATLAB_PROJECTS=alpha,bravo \
//   LATLAB_SUITES=alpha-suite,bravo-suite LATLAB_RUNS=1,2 node --test tests/e2e/projects.test.mjs
//
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

async function switchTo(slug) {
  await page.getByRole("combobox", { name: "Project" }).selectOption(slug);
  await page.waitForFunction(
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
