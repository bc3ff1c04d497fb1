// CPU profiles in Chromium: a run's flame graph names its frames, zooms into the frame clicked
// (it then spans the whole width) and back, and highlights what a search matches; the compare
// page, a confirmation run and a confirmed regression's alert each open the differential flame
// graph, where the frame the candidate spins in is coloured as grown and tops the table.
//
//   LATLAB_URL=... LATLAB_EMAIL=... LATLAB_PASSWORD=... LATLAB_BASELINE_RUN_ID=1 \
//   LATLAB_CANDIDATE_RUN_ID=2 LATLAB_CONFIRMATION_RUN_ID=3 LATLAB_ALERT_ID=1 \
//   node --test tests/e2e/profiles.test.mjs
//
// backend/tests/test_profiles_e2e.py provides all of this from a throwaway stack: the
// server's profile {client: rust} in the baseline (1000 samples) and in the candidate (2000,
// half of them in order_server::spin_work), a confirmation of the candidate that profiled both
// versions as {variant: baseline} and {variant: candidate}, and an alert it confirmed.

import assert from "node:assert/strict";
import { test } from "node:test";

import { labUrl, requireEnv, screenshot, signedInSession } from "./browser.mjs";

const baseUrl = labUrl();
const baselineRunId = requireEnv("LATLAB_BASELINE_RUN_ID");
const candidateRunId = requireEnv("LATLAB_CANDIDATE_RUN_ID");
const confirmationRunId = requireEnv("LATLAB_CONFIRMATION_RUN_ID");
const alertId = requireEnv("LATLAB_ALERT_ID");
const SPIN = "order_server::spin_work";
const HANDLER = "order_server::handle_request";

const session = signedInSession(baseUrl);

function flameGraph(name) {
  return session.page.getByRole("figure", { name });
}

function frame(graph, name) {
  return graph.locator(`g.flame-frame[data-frame="${name}"]`);
}

async function width(locator) {
  const box = await locator.boundingBox();
  assert.ok(box, "drawn");
  return box.width;
}

/** The differential view of the server's profile: the spinning frame grew and leads the table. */
async function assertSpinGrew() {
  const graph = flameGraph(/^Differential flame graph of client=rust · server/);
  await frame(graph, SPIN).waitFor();
  assert.equal(await frame(graph, SPIN).getAttribute("data-change"), "grew");
  const fill = await frame(graph, SPIN).locator("rect").getAttribute("fill");
  const [r, g, b] = fill.match(/\d+/g).map(Number);
  assert.ok(r > 200 && g < 80 && b < 80, `the largest growth is deep red: ${fill}`);
  const parse = frame(graph, "order_server::parse_order");
  assert.equal(await parse.getAttribute("data-change"), "shrank");
  const table = session.page.getByRole("table", { name: /^Frames whose self share changed most/ });
  const first = table.locator("tbody tr").first();
  assert.equal(await first.getAttribute("data-frame"), SPIN);
  assert.equal(await first.getAttribute("data-change"), "grew");
  assert.match(await first.innerText(), /0%\s+50\.0%\s+\+50\.0 pp grew/);
  await session.page.getByRole("note", { name: "How to read the colours" }).waitFor();
}

test("CPU profiles: flame graphs and differential flame graphs", async (t) => {
  await t.test("a run's flame graph names its frames and says their share on hover", async () => {
    await session.page.goto(`${baseUrl}/runs/${candidateRunId}`);
    await session.page.getByRole("heading", { name: "CPU profiles" }).waitFor();
    const graph = flameGraph(/^CPU flame graph of client=rust · server · perf, 2,000 samples/);
    await frame(graph, SPIN).waitFor();
    for (const name of ["all", "order_server::main", HANDLER, "libc::epoll_wait"]) {
      assert.equal(await frame(graph, name).count(), 1, name);
    }
    // The frames are buttons named by what they are, with a title for the tooltip.
    await graph.getByRole("button", { name: `${SPIN}: 1,000 samples, 50.0%` }).waitFor();
    assert.match(await frame(graph, SPIN).locator("title").textContent(), /1,000 samples, 50\.0%/);
    await frame(graph, SPIN).hover();
    assert.equal(
      await session.page.getByTestId("flame-details").innerText(),
      `${SPIN}: 1,000 samples, 50.0%, 50.0% on the CPU itself`,
    );
    const full = await width(graph.locator("svg"));
    assert.ok(Math.abs((await width(frame(graph, SPIN))) - full / 2) < 3, "half the width");
    await screenshot(session.page, "profiles-01-flame-graph");
  });

  await t.test("a click zooms into a frame, which then spans the width", async () => {
    const graph = flameGraph(/^CPU flame graph of/);
    const full = await width(graph.locator("svg"));
    assert.ok((await width(frame(graph, HANDLER))) < full * 0.95);
    await frame(graph, HANDLER).click();
    await frame(graph, "libc::epoll_wait").waitFor({ state: "detached" });
    assert.ok(Math.abs((await width(frame(graph, HANDLER))) - full) < 2, "the whole width");
    // Its callees fill it by their share of it: spin_work is 1000 of its 1900 samples.
    const spin = await width(frame(graph, SPIN));
    assert.ok(Math.abs(spin - (full * 1000) / 1900) < 3, `spin_work is ${String(spin)} px`);
    assert.match(
      await session.page.getByTestId("flame-details").innerText(),
      new RegExp(`^Zoomed into ${HANDLER}`),
    );
    await screenshot(session.page, "profiles-02-zoomed");
    // Back: the root zooms out; so does Reset zoom.
    await frame(graph, "all").click();
    await frame(graph, "libc::epoll_wait").waitFor();
    await frame(graph, SPIN).click();
    assert.ok(Math.abs((await width(frame(graph, SPIN))) - full) < 2);
    await session.page.getByRole("button", { name: "Reset zoom" }).click();
    await frame(graph, "libc::epoll_wait").waitFor();
    assert.ok(Math.abs((await width(frame(graph, SPIN))) - full / 2) < 3);
  });

  await t.test("search highlights the frames it matches and their share", async () => {
    const graph = flameGraph(/^CPU flame graph of/);
    await session.page.getByLabel("Search frames").fill("SPIN");
    assert.equal(
      await session.page.getByTestId("flame-matched").innerText(),
      "matched 50.0% of the samples (1,000) in 1 frame",
    );
    assert.equal(await frame(graph, SPIN).getAttribute("data-match"), "true");
    assert.equal(await frame(graph, HANDLER).getAttribute("data-match"), "false");
    assert.equal(await graph.locator('g.flame-frame[data-match="true"]').count(), 1);
    // parse_order and match_order: 400 + 300 of 2000 samples.
    await session.page.getByLabel("Search frames").fill("_order");
    await session.page
      .getByTestId("flame-matched")
      .getByText("matched 35.0% of the samples (700) in 2 frames")
      .waitFor();
    await screenshot(session.page, "profiles-03-search");
    await session.page.getByLabel("Search frames").fill("");
  });

  await t.test("the folded stacks download", async () => {
    const link = session.page.getByRole("link", { name: "Folded stacks" });
    const href = await link.getAttribute("href");
    const folded = new RegExp(`^/api/v1/runs/${candidateRunId}/profiles/\\d+\\?format=folded$`);
    assert.match(href, folded);
    const response = await session.page.request.get(`${baseUrl}${href}`);
    assert.equal(response.status(), 200);
    const text = await response.text();
    assert.match(text.split("\n")[0], new RegExp(`${SPIN} 1000$`));
  });

  await t.test("the compare page opens the differential flame graph", async () => {
    await session.page.goto(
      `${baseUrl}/compare?baseline=${baselineRunId}&candidate=${candidateRunId}`,
    );
    await session.page.getByRole("link", { name: "Compare CPU profiles" }).click();
    await session.page.waitForURL(
      `${baseUrl}/compare/profiles?baseline=${baselineRunId}&candidate=${candidateRunId}`,
    );
    await session.page.getByRole("heading", { name: "Compare CPU profiles", level: 1 }).waitFor();
    await assertSpinGrew();
    // Hovering a frame says both sides' shares.
    const graph = flameGraph(/^Differential flame graph of/);
    await frame(graph, SPIN).hover();
    assert.equal(
      await session.page.getByTestId("flame-details").innerText(),
      `${SPIN}: 50.0% of the candidate (1,000 samples), 0% of the baseline; ` +
        "self share +50.0 pp (grew)",
    );
    await screenshot(session.page, "profiles-04-differential");
    // The same zoom and search.
    await frame(graph, HANDLER).click();
    const full = await width(graph.locator("svg"));
    assert.ok(Math.abs((await width(frame(graph, HANDLER))) - full) < 2);
    await session.page.getByLabel("Search frames").fill("spin");
    assert.equal(await frame(graph, SPIN).getAttribute("data-match"), "true");
  });

  await t.test("a confirmation run opens its two versions' differential view", async () => {
    await session.page.goto(`${baseUrl}/runs/${confirmationRunId}`);
    await session.page.getByRole("heading", { name: "CPU profiles" }).waitFor();
    await session.page.getByRole("link", { name: "Compare CPU profiles" }).click();
    await session.page.waitForURL(/\/compare\/profiles\?/);
    const query = new URL(session.page.url()).searchParams;
    assert.equal(query.get("baseline"), confirmationRunId);
    assert.equal(query.get("candidate"), confirmationRunId);
    assert.deepEqual(JSON.parse(query.get("baseline_labels")), { variant: "baseline" });
    assert.deepEqual(JSON.parse(query.get("candidate_labels")), { variant: "candidate" });
    await session.page
      .getByText(/\[variant=candidate\] against #\d+ \[variant=baseline\]/)
      .waitFor();
    await assertSpinGrew();
  });

  await t.test("a confirmed regression's alert opens the differential view", async () => {
    await session.page.goto(`${baseUrl}/alerts`);
    const row = session.page.locator(`tr[data-alert-id="${alertId}"]`);
    await row.getByRole("link", { name: "CPU profiles" }).click();
    await session.page.waitForURL(/\/compare\/profiles\?/);
    const query = new URL(session.page.url()).searchParams;
    assert.equal(query.get("candidate"), confirmationRunId);
    assert.deepEqual(JSON.parse(query.get("candidate_labels")), { variant: "candidate" });
    await assertSpinGrew();
    await screenshot(session.page, "profiles-05-from-alert");
  });
});
