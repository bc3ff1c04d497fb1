// The actor-iot suite's acceptance in the browser: a shortened `multi` run drawn as msg/s and
// p99 against devices, one line per mode; then actor compared with sync inside the run, a
// verdict per device count. Screenshots of both.
//
//   LATLAB_URL=... LATLAB_EMAIL=... LATLAB_PASSWORD=... LATLAB_IOT_RUN_ID=... \
//   LATLAB_IOT_DEVICES=1,10,50 node --test tests/e2e/actor-iot.test.mjs
//
// backend/tests/test_actor_iot_jobs.py provides all of this from a throwaway lab.

import assert from "node:assert/strict";
import { test } from "node:test";

import { labUrl, requireEnv, screenshot, signedInSession, tick } from "./browser.mjs";

const baseUrl = labUrl();
const runId = requireEnv("LATLAB_IOT_RUN_ID");
const devices = requireEnv("LATLAB_IOT_DEVICES").split(",");

const session = signedInSession(baseUrl);

test("actor-iot: a device sweep per mode, actor compared with sync", async (t) => {
  await t.test("the run draws msg/s and p99 against devices, a line per mode", async () => {
    await session.page.goto(`${baseUrl}/runs/${runId}`);
    await session.page.getByRole("heading", { name: "Load-latency curves" }).waitFor();
    for (const name of ["P99 against devices", "messages against devices"]) {
      const figure = session.page.getByRole("figure", { name });
      // A dot per device count on each mode's line.
      await figure.locator("circle").nth(2 * devices.length - 1).waitFor();
      assert.equal(await figure.locator("circle").count(), 2 * devices.length, name);
      for (const mode of ["mode=actor", "mode=sync"]) {
        await figure.getByText(mode).first().waitFor();
      }
    }
    // The suite's own metrics, with their units from its suite.toml: its rate always shown,
    // the others chosen (alerts fired is not among the first few).
    await session.page.getByText("Columns", { exact: true }).click();
    await tick(session.page.locator(".column-chooser").getByLabel("alerts fired"));
    await session.page.getByRole("columnheader", { name: "alerts fired" }).first().waitFor();
    assert.match(await session.page.locator('td[data-column="messages_per_s"]').first().innerText(),
      /msg\/s$/);
    await screenshot(session.page, "actor-iot-01-device-sweep");
  });

  await t.test("actor against sync inside the run: a verdict per device count", async () => {
    const form = session.page.getByRole("form", { name: "Compare two series of this run" });
    await form.getByLabel("Along").selectOption("mode");
    await form.getByLabel("baseline").selectOption("sync");
    await form.getByLabel("candidate").selectOption("actor");
    await form.getByRole("button", { name: "Compare series" }).click();
    await session.page.waitForURL(/\/compare\?/);
    await session.page.getByText(/\[mode=actor\] against/).waitFor();
    const p99 = session.page.getByRole("figure", { name: "P99 against devices" });
    // Mailbox queues against direct calls: milliseconds against microseconds.
    await p99.locator('circle[data-verdict="regressed"]').first().waitFor();
    assert.equal(await p99.locator('circle[data-verdict="regressed"]').count(), devices.length);
    await screenshot(session.page, "actor-iot-02-actor-vs-sync");
  });
});
