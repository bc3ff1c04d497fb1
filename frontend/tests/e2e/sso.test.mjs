// Single sign-on in Chromium: the sign-in page offers the lab's provider; its button goes to
// Keycloak's own form and back, signed in, to the dashboard.
//
//   LATLAB_URL=... LATLAB_SSO_USER=ada LATLAB_SSO_PASSWORD=... node --test tests/e2e/sso.test.mjs
//
// backend/tests/test_sso.py provides this: the api with the provider `kc` (Keycloak).

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { labUrl, launchBrowser, newPage, requireEnv, screenshot } from "./browser.mjs";

const baseUrl = labUrl();
let browser;

before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

test("sign in with Keycloak from the sign-in page", async () => {
  const { page } = await newPage(browser);
  await page.goto(`${baseUrl}/login`);
  const button = page.getByRole("link", { name: "Sign in with Keycloak", exact: true });
  await button.waitFor();
  await screenshot(page, "sso-01-sign-in");
  await button.click();
  await page.locator("#username").fill(requireEnv("LATLAB_SSO_USER"));
  await page.locator("#password").fill(requireEnv("LATLAB_SSO_PASSWORD"));
  await page.locator("#kc-login").click();
  await page.waitForURL((url) => url.origin === new URL(baseUrl).origin);
  const landed = page.url();
  await page
    .getByRole("heading", { name: "Overview", level: 1 })
    .waitFor()
    .catch(async () => {
      throw new Error(`landed on ${landed}: ${await page.locator("body").innerText()}`);
    });
  assert.equal(new URL(page.url()).pathname, "/");
  await screenshot(page, "sso-02-signed-in");
});
