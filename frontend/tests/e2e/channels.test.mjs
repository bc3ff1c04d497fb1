// Settings > Channels in the browser: a channel whose deliveries keep failing says so (since
// when, the last error), and muting it shows it muted. Screenshot of each.
//
//   LATLAB_URL=... LATLAB_EMAIL=... LATLAB_PASSWORD=... LATLAB_CHANNEL=... \
//   node --test tests/e2e/channels.test.mjs
//
// backend/tests/test_channels_e2e.py provides all of this from a throwaway lab.

import assert from "node:assert/strict";
import { test } from "node:test";

import { labUrl, requireEnv, screenshot, signedInSession } from "./browser.mjs";

const baseUrl = labUrl();
const channel = requireEnv("LATLAB_CHANNEL");

const session = signedInSession(baseUrl);

test("a failing channel is shown, then muted", async () => {
  await session.page.goto(`${baseUrl}/settings#channels`);
  const row = session.page.getByRole("row").filter({ has: session.page.getByRole("rowheader", { name: channel }) });
  const health = row.locator('[data-channel-status="failing"]');
  await health.waitFor();
  assert.match(await health.innerText(), /failing since .*\d+ failed attempts in a row.*HTTP 503/);
  await screenshot(session.page, "channels-01-failing");
  await row.getByRole("button", { name: "Mute" }).click();
  await row.getByText("muted: sent nothing").waitFor();
  await row.getByRole("button", { name: "Unmute" }).waitFor();
  await screenshot(session.page, "channels-02-muted");
});
