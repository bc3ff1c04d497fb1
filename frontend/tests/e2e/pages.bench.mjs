// The dashboard's pages timed in Chromium for bench/pages.py (which starts the lab and prints
// the table): for each page and suite, the median over LATLAB_ROUNDS loads of the seconds to
// its content and the api requests made until then and until the network was quiet. Prints
// JSON on stdout.
//
//   LATLAB_URL=... LATLAB_EMAIL=... LATLAB_PASSWORD=... LATLAB_ROUNDS=3 \
//   LATLAB_PAGES='{"wide": {"last": 1200, "before": 1196, "scenario": "stress"}, ...}' \
//   node tests/e2e/pages.bench.mjs

import { labUrl, launchBrowser, newPage, requireEnv, signIn } from "./browser.mjs";

const baseUrl = labUrl();
const suites = JSON.parse(requireEnv("LATLAB_PAGES"));
const rounds = Number(process.env.LATLAB_ROUNDS || "3");

// What each page shows once it has content: a row, or a drawn line.
const LINE = "path.recharts-line-curve";
const pages = (suite, runs) => [
  ["overview", "/", "table.overview-runs tbody tr"],
  ["runs", `/runs?suite=${suite}`, "table.runs-table tbody tr"],
  ["run", `/runs/${runs.last}`, `figure[aria-label="Latency by percentile"] ${LINE}`],
  // The comparison's answer: its headline (unchanged series are filtered out at first).
  ["compare", `/compare?baseline=${runs.before}&candidate=${runs.last}`, "p.headline strong"],
  ["trends", `/trends?suite=${suite}&scenario=${runs.scenario}`, `figure.chart ${LINE}`],
];

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

async function measure(ctx, path, selector) {
  const page = await ctx.newPage();
  const api = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname.startsWith("/api/")) api.push(request.url());
  });
  const started = performance.now();
  await page.goto(`${baseUrl}${path}`);
  // Attached, not visible: a flat line has an empty box.
  await page.locator(selector).first().waitFor({ state: "attached", timeout: 120_000 });
  const content = (performance.now() - started) / 1000;
  const requests = api.length;
  await page.waitForLoadState("networkidle", { timeout: 120_000 });
  const quiet = api.length;
  await page.close();
  return { content, requests, quiet };
}

const browser = await launchBrowser();
try {
  const { ctx, page } = await newPage(browser);
  await signIn(page, baseUrl, requireEnv("LATLAB_EMAIL"), requireEnv("LATLAB_PASSWORD"));
  const figures = [];
  for (const [suite, runs] of Object.entries(suites)) {
    for (const [name, path, selector] of pages(suite, runs)) {
      await measure(ctx, path, selector); // warms the api's caches and the browser's assets
      const loads = [];
      for (let i = 0; i < rounds; i += 1) loads.push(await measure(ctx, path, selector));
      figures.push({
        page: name,
        suite,
        path,
        content_s: median(loads.map((load) => load.content)),
        requests: median(loads.map((load) => load.requests)),
        quiet_requests: median(loads.map((load) => load.quiet)),
      });
    }
  }
  process.stdout.write(JSON.stringify(figures));
} finally {
  await browser.close();
}
