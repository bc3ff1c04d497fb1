// Themes and a phone-wide viewport in Chromium: with the system in dark mode the pages are dark
// with light text (and the reverse in light mode), text keeps a 4.5:1 contrast with what is
// behind it, charts follow the theme; at 390x844 no page is wider than the viewport, the main
// navigation stays on screen, forms stack and cards take one per row. Screenshots of every page
// in both themes at both widths.
//
//   LATLAB_URL=... LATLAB_EMAIL=... LATLAB_PASSWORD=... LATLAB_RUNS=1,2,3,4 \
//   node --test tests/e2e/themes.test.mjs
//
// backend/tests/test_themes_e2e.py provides all of this from a throwaway stack: LATLAB_RUNS are
// runs of http-order `medium` on main, oldest first.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { labUrl, launchBrowser, newPage, requireEnv, screenshot, signIn } from "./browser.mjs";

const baseUrl = labUrl();
const runs = requireEnv("LATLAB_RUNS").split(",");
const [first, latest] = [runs[0], runs.at(-1)];

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const NAV = ["Overview", "Runs", "Compare", "Trends", "Alerts", "Hosts", "Jobs", "Settings"];

/** Each page, and what shows once its data has loaded. */
const PAGES = [
  { name: "overview", path: "/", ready: (page) => page.locator("main tr[data-suite]").first() },
  { name: "runs", path: "/runs", ready: (page) => page.locator("main tbody tr").first() },
  { name: "run", path: `/runs/${latest}`, ready: (page) => page.locator("main .recharts-line") },
  {
    name: "compare",
    path: `/compare?baseline=${first}&candidate=${latest}`,
    ready: (page) => page.locator("main tbody tr").first(),
  },
  {
    name: "trends",
    path: "/trends?suite=http-order&scenario=medium&metric=p99",
    ready: (page) => page.locator(`circle.trend-point[data-run-id="${latest}"]`),
  },
  { name: "alerts", path: "/alerts", ready: (page) => page.getByText("No alerts") },
  { name: "jobs", path: "/jobs", ready: (page) => page.getByText("No jobs yet") },
  {
    name: "settings",
    path: "/settings",
    ready: (page) => page.getByRole("heading", { name: "Users and roles", level: 2 }),
  },
];

let browser;
let storageState;

before(async () => {
  browser = await launchBrowser();
  const { ctx, page } = await newPage(browser);
  await signIn(page, baseUrl, requireEnv("LATLAB_EMAIL"), requireEnv("LATLAB_PASSWORD"));
  storageState = await ctx.storageState();
  await ctx.close();
});

after(async () => {
  await browser?.close();
});

async function openIn(colorScheme, viewport) {
  return (await newPage(browser, { colorScheme, viewport, storageState })).page;
}

async function visit(page, { path, ready }) {
  await page.goto(`${baseUrl}${path}`);
  await page.locator("main h1").first().waitFor();
  await ready(page).first().waitFor();
}

/**
 * The page's colours as WCAG relative luminances: the page's background and text, a surface
 * (table, panel, run facts) and its text, muted text, and on a chart its grid and tick labels.
 */
function colours(page) {
  return page.evaluate(() => {
    const luminance = (css) => {
      const [r, g, b] = css.match(/[\d.]+/g).slice(0, 3).map((c) => Number(c) / 255);
      const linear = (c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
      return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
    };
    const style = (selector) => {
      const element = document.querySelector(selector);
      return element ? getComputedStyle(element) : null;
    };
    const surface = style("main .table-scroll, main .meta, main .panel");
    const surfaceText = style("main .table-scroll td, main .meta dd, main .panel p");
    const grid = style("main .chart .recharts-cartesian-grid line");
    const tick = style("main .chart .recharts-cartesian-axis-tick-value");
    return {
      background: luminance(getComputedStyle(document.documentElement).backgroundColor),
      text: luminance(getComputedStyle(document.body).color),
      muted: luminance(style(".nav-link:not(.active)").color),
      surface: luminance(surface.backgroundColor),
      surfaceText: luminance(surfaceText.color),
      grid: grid && luminance(grid.stroke),
      tick: tick && luminance(tick.fill),
    };
  });
}

function contrast(a, b) {
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}

function assertReadable(found, where) {
  for (const [text, behind] of [
    ["text", "background"],
    ["muted", "background"],
    ["surfaceText", "surface"],
  ]) {
    const ratio = contrast(found[text], found[behind]);
    assert.ok(ratio >= 4.5, `${where}: ${text} on ${behind} has contrast ${ratio.toFixed(2)}`);
  }
  if (found.tick !== null) {
    const ratio = contrast(found.tick, found.surface);
    assert.ok(ratio >= 4.5, `${where}: chart ticks on the chart have contrast ${ratio.toFixed(2)}`);
  }
}

for (const scheme of ["dark", "light"]) {
  test(`with the system in ${scheme} mode the pages are ${scheme}`, async () => {
    const page = await openIn(scheme, DESKTOP);
    for (const spec of PAGES) {
      await visit(page, spec);
      await screenshot(page, `themes-${scheme}-desktop-${spec.name}`);
      if (!["overview", "runs", "run"].includes(spec.name)) continue;
      const found = await colours(page);
      const where = `${scheme} ${spec.name}`;
      if (scheme === "dark") {
        assert.ok(found.background < 0.05, `${where}: background ${found.background}`);
        assert.ok(found.surface < 0.05, `${where}: surface ${found.surface}`);
        assert.ok(found.text > 0.6, `${where}: text ${found.text}`);
        assert.ok(found.surfaceText > 0.6, `${where}: text on a surface ${found.surfaceText}`);
      } else {
        assert.ok(found.background > 0.85, `${where}: background ${found.background}`);
        assert.ok(found.surface > 0.85, `${where}: surface ${found.surface}`);
        assert.ok(found.text < 0.05, `${where}: text ${found.text}`);
        assert.ok(found.surfaceText < 0.05, `${where}: text on a surface ${found.surfaceText}`);
      }
      assertReadable(found, where);
      if (spec.name === "run") {
        // The grid stays faint: near the surface's luminance, on the surface's side.
        assert.notEqual(found.grid, null, `${where}: no chart grid`);
        const faint = scheme === "dark" ? found.grid < 0.1 : found.grid > 0.6;
        assert.ok(faint, `${where}: grid luminance ${found.grid}`);
      }
    }
    await page.context().close();
  });
}

/** What sticks out past the viewport's right edge, for the failure message. */
function overflowing(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll("body *")]
      .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5)
      .slice(0, 8)
      .map((element) => `${element.tagName.toLowerCase()}.${[...element.classList].join(".")}`),
  );
}

/** The most columns (distinct left edges of the children) of the grids `selector` matches. */
function columns(page, selector) {
  return page.evaluate((wanted) => {
    const grids = [...document.querySelectorAll(wanted)];
    const lefts = (grid) =>
      [...grid.children].map((child) => Math.round(child.getBoundingClientRect().left));
    return Math.max(...grids.map((grid) => new Set(lefts(grid)).size));
  }, selector);
}

for (const scheme of ["light", "dark"]) {
  test(`at 390 px wide (${scheme}) the pages fit and the navigation stays on screen`, async () => {
    const page = await openIn(scheme, PHONE);
    const nav = page.getByRole("navigation", { name: "Main" });
    for (const spec of PAGES) {
      await visit(page, spec);
      await screenshot(page, `themes-${scheme}-phone-${spec.name}`);
      const [scrollWidth, innerWidth] = await page.evaluate(() => [
        document.documentElement.scrollWidth,
        window.innerWidth,
      ]);
      assert.equal(innerWidth, PHONE.width);
      assert.ok(
        scrollWidth <= innerWidth,
        `${spec.name} is ${scrollWidth} px wide: ${(await overflowing(page)).join(", ")}`,
      );
      for (const label of NAV) {
        const link = nav.getByRole("link", { name: label, exact: true });
        assert.ok(await link.isVisible(), `${spec.name}: ${label} hidden`);
        const box = await link.boundingBox();
        const onScreen = box.x >= 0 && box.x + box.width <= innerWidth;
        assert.ok(onScreen, `${spec.name}: ${label} off screen`);
      }
      if (spec.name === "overview") assert.equal(await columns(page, "main .overview"), 1);
      if (spec.name === "settings") assert.equal(await columns(page, "main .form-grid"), 1);
      if (spec.name === "run") {
        const chart = await page.locator("main figure.chart").first().boundingBox();
        assert.ok(chart.x >= 0 && chart.x + chart.width <= innerWidth, "the run's chart is cut");
      }
    }
    // The navigation works by touch too: the last link, on the wrapped rows, opens its page.
    await nav.getByRole("link", { name: "Overview", exact: true }).click();
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await nav.getByRole("link", { name: "Settings", exact: true }).click();
    await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
    await page.context().close();
  });
}
