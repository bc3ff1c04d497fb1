// End-to-end: sign in, find a run in the list, open it, see its summary and spectrum.
// Runs against a real latlab server (the api serving frontend/dist) in Debian's Chromium.
//
//   LATLAB_URL=http://127.0.0.1:8000 LATLAB_EMAIL=... LATLAB_PASSWORD=... LATLAB_RUN_ID=1 \
//     npm run e2e

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const baseUrl = requireEnv("LATLAB_URL").replace(/\/+$/, "");
const email = requireEnv("LATLAB_EMAIL");
const password = requireEnv("LATLAB_PASSWORD");
const runId = requireEnv("LATLAB_RUN_ID");
const screenshotDir = path.resolve(
  process.env.LATLAB_SCREENSHOT_DIR || path.join(here, "..", "..", "test-results", "screenshots"),
);
const TIMEOUT_MS = 15_000;

let browser;
let page;

function requireEnv(name) {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name} (see the top of ${path.basename(import.meta.url)})`);
  return value;
}

async function screenshot(name) {
  await page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: true });
}

before(async () => {
  await mkdir(screenshotDir, { recursive: true });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(TIMEOUT_MS);
  page = await context.newPage();
  page.on("pageerror", (error) => console.error("page error:", error.message));
});

after(async () => {
  await browser?.close();
});

test("dashboard: login, runs list, run detail", async (t) => {
  await t.test("an anonymous visitor is sent to /login", async () => {
    await page.goto(baseUrl);
    await page.waitForURL(/\/login$/);
    await page.getByLabel("Email").waitFor();
    await screenshot("01-login");
  });

  await t.test("signing in leads to the runs list with the run", async () => {
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/runs$/);
    await page.getByRole("heading", { name: "Runs" }).waitFor();
    const row = page.locator(`tr[data-run-id="${runId}"]`);
    await row.waitFor();
    assert.match(await row.innerText(), new RegExp(`#${runId}\\b`));
    await screenshot("02-runs");
  });

  await t.test("the run page shows the summary and the spectrum", async () => {
    await page.locator(`tr[data-run-id="${runId}"]`).click();
    await page.waitForURL(new RegExp(`/runs/${runId}$`));

    await page.getByRole("columnheader", { name: "p99", exact: true }).waitFor();
    const p99 = page.locator('.summary-table td[data-column="p99"]').first();
    await p99.waitFor();
    assert.match((await p99.innerText()).trim(), /^\d+(\.\d+)? (ns|µs|ms|s)$/);

    const curve = page.locator("svg path.recharts-line-curve").first();
    await curve.waitFor();
    assert.ok(((await curve.getAttribute("d")) ?? "").length > 10, "the spectrum line has a path");
    await screenshot("03-run");
  });
});
