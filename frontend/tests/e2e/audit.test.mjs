// The audit log in Chromium: an admin opens Settings, reads the newest changes (who, what,
// the change itself) and pages back to the oldest.
//
//   LATLAB_URL=... LATLAB_EMAIL=... LATLAB_PASSWORD=... LATLAB_RULE=7 LATLAB_AUDIT_TOTAL=26 \
//   node --test tests/e2e/audit.test.mjs
//
// backend/tests/test_audit_e2e.py provides all of this from a throwaway stack: 22 tokens
// made, then a rule made and its threshold changed from 2 to 3.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { labUrl, launchBrowser, newPage, requireEnv, screenshot, signIn } from "./browser.mjs";

const baseUrl = labUrl();
const email = requireEnv("LATLAB_EMAIL");
const password = requireEnv("LATLAB_PASSWORD");
const rule = requireEnv("LATLAB_RULE");
const total = Number(requireEnv("LATLAB_AUDIT_TOTAL"));

let browser;
let page;

before(async () => {
  browser = await launchBrowser();
  ({ page } = await newPage(browser));
  await signIn(page, baseUrl, email, password);
});

after(async () => {
  await browser?.close();
});

test("the audit log shows the newest change first, with who made it and how", async () => {
  await page.goto(`${baseUrl}/settings#audit`);
  const table = page.locator("table.audit-table");
  const newest = table.locator("tbody tr").first();
  await newest.getByText(`sla rule ${rule} update`).waitFor();
  assert.match(await newest.innerText(), new RegExp(email.replace(/[.+]/g, "\\$&")));
  assert.match(await newest.innerText(), /threshold: 2 → 3/);
  assert.equal(await table.locator("tbody tr").count(), 20);
  await table.scrollIntoViewIfNeeded();
  await screenshot(page, "settings-audit-log");
});

test("older changes are a page further", async () => {
  const pagination = page.getByRole("navigation", { name: "Audit log pages" });
  await pagination.getByText(`1–20 of ${total}`).waitFor();
  await pagination.getByRole("button", { name: "Next" }).click();
  await pagination.getByText(`21–${total} of ${total}`).waitFor();
  // The page before stays shown until the next one arrives.
  await page.waitForFunction(
    (count) => document.querySelectorAll("table.audit-table tbody tr").length === count,
    total - 20,
  );
  assert.match(await page.locator("table.audit-table").innerText(), /created ci-0/);
});
