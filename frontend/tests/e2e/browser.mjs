// Shared by the browser tests (tests/e2e/*.test.mjs): Debian's Chromium through playwright-core,
// a signed-in page, screenshots. Each test file gets its URL and credentials from LATLAB_*
// variables, set by the pytest test that provides a throwaway lab (backend/tests/).

import { mkdir } from "node:fs/promises";
import path from "node:path";
import { after, before } from "node:test";
import { fileURLToPath } from "node:url";

import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
export const TIMEOUT_MS = 15_000;
export const screenshotDir = path.resolve(
  process.env.LATLAB_SCREENSHOT_DIR || path.join(here, "screenshots"),
);

export function requireEnv(name) {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name} (see the top of the test file)`);
  return value;
}

/** The lab's URL (LATLAB_URL), without a trailing slash. */
export function labUrl() {
  return requireEnv("LATLAB_URL").replace(/\/+$/, "");
}

export async function launchBrowser() {
  await mkdir(screenshotDir, { recursive: true });
  return chromium.launch({
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
}

/** A page in a new browser context; `options` adds to or overrides the context's (viewport,
 * colorScheme, storageState, ...). */
export async function newPage(browser, options = {}) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  ctx.setDefaultTimeout(TIMEOUT_MS);
  const page = await ctx.newPage();
  page.on("pageerror", (error) => console.error("page error:", error.message));
  return { ctx, page };
}

export async function signIn(page, baseUrl, email, password) {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
}

/** A browser with one page signed in as LATLAB_EMAIL; the caller closes the browser. */
export async function openSignedIn(baseUrl) {
  const browser = await launchBrowser();
  const { page } = await newPage(browser);
  await signIn(page, baseUrl, requireEnv("LATLAB_EMAIL"), requireEnv("LATLAB_PASSWORD"));
  return { browser, page };
}

/** Signs in before a test file's tests and closes the browser after them; the tests use
 * `session.page`. */
export function signedInSession(baseUrl) {
  const session = { browser: undefined, page: undefined };
  before(async () => {
    Object.assign(session, await openSignedIn(baseUrl));
  });
  after(async () => {
    await session.browser?.close();
  });
  return session;
}

export async function screenshot(page, name) {
  await page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: true });
}

/**
 * Ticks (or unticks) a checkbox and waits until it shows so. Playwright's `check()` reads the box
 * right after its click, but a box whose state lives in the URL changes only when the router's
 * navigation renders (React Router runs it as a transition), which on a loaded machine comes
 * later: `check()` would call that a click that did nothing.
 */
export async function tick(box, checked = true) {
  if ((await box.isChecked()) === checked) return;
  await box.click();
  const deadline = Date.now() + TIMEOUT_MS;
  while ((await box.isChecked()) !== checked) {
    if (Date.now() > deadline) throw new Error(`the box did not become ${checked ? "ticked" : "unticked"}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
