// npm run bench:web — how fast the run page draws a long run. The real page (next start, production build) in
// Chromium, its API answered by Playwright routes with synthetic runs of 10 min, 1 h and 4 h at one point per
// second (every series filled: 17 lines over 7 charts), the live stream replaced by a stub the bench feeds.
// Measures: first series answer → the charts on screen painted (what a reload mid-run costs; the charts below
// the fold are drawn after it, one per idle moment: also timed, series answer → every chart painted), navigation
// → painted, the longest main-thread task, one live second appended on top of the history (p50/p95/max of 60).
// Then the latency distribution of the same run read (its "Read the distribution so far" button): click →
// histogram and heatmap painted, and each canvas's own drawing time; then a zoom: a drag across the first chart
// until every chart has painted the selected range, and until the distribution has painted the range's (read
// again for the new range).
// The server's side of the same reads on 3,600 stored seconds in PostgreSQL is npm run bench:range.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser } from "@playwright/test";
import { agents, distribution, history, liveRun, me, point, RUN_ID } from "./run-page-fixtures";

const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const root = path.resolve(webDir, "../..");
const SIZES = [600, 3600, 14_400];
const REPEATS = 3;
const APPENDS = 60;

function newestMtime(entry: string): number {
  const stat = statSync(entry, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(
    0,
    ...readdirSync(entry)
      .filter((name) => ![".next", "node_modules", "bench"].includes(name))
      .map((name) => newestMtime(path.join(entry, name))),
  );
}

/** Builds the web when its sources are newer than the last build, as npm start does. */
function buildIfStale() {
  const built = statSync(path.join(webDir, ".next/BUILD_ID"), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  if (built > Math.max(newestMtime(webDir), newestMtime(path.join(root, "packages/protocol/src")))) return;
  console.log("building the web (npm run build -w @throng/web)…");
  const result = spawnSync("npm", ["run", "build", "--silent", "-w", "@throng/web"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (result.status !== 0) throw new Error("the web build failed; fix it and run npm run bench:web again");
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

async function startWeb(port: number) {
  const next = path.join(root, "node_modules/next/dist/bin/next");
  // No API behind it: every /api call is answered in the browser by the bench's routes.
  const child = spawn(process.execPath, [next, "start", "-p", String(port)], {
    cwd: webDir,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_ENV: "production", API_URL: "http://127.0.0.1:9" },
  });
  const started = Date.now();
  while (Date.now() - started < 30_000) {
    const ok = await fetch(`http://127.0.0.1:${port}/sign-in`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return child;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill();
  throw new Error(`next start did not answer on port ${port}`);
}

function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"].filter(
    Boolean,
  ) as string[];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) throw new Error("Chromium not found: install it (apt-get install chromium) or set CHROMIUM_PATH");
  return found;
}

/** In the page: a stand-in EventSource the bench feeds, the time /series answers, and the long tasks. */
function instrument() {
  const bench = {
    sources: [] as { onmessage: ((event: { data: string }) => void) | null }[],
    seriesAt: [] as number[],
    longTasks: [] as number[],
  };
  (window as unknown as { __bench: typeof bench }).__bench = bench;
  class StubEventSource {
    static CONNECTING = 0;
    static OPEN = 1;
    static CLOSED = 2;
    readyState = 0;
    onmessage: ((event: { data: string }) => void) | null = null;
    onopen: (() => void) | null = null;
    onerror: (() => void) | null = null;
    constructor(readonly url: string) {
      bench.sources.push(this);
      setTimeout(() => {
        this.readyState = 1;
        this.onopen?.();
      }, 0);
    }
    close() {
      this.readyState = 2;
    }
  }
  (window as unknown as { EventSource: unknown }).EventSource = StubEventSource;
  const original = window.fetch.bind(window);
  window.fetch = async (...args: Parameters<typeof fetch>) => {
    const response = await original(...args);
    if (String(args[0] instanceof Request ? args[0].url : args[0]).endsWith("/series"))
      bench.seriesAt.push(performance.now());
    return response;
  };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) bench.longTasks.push(entry.duration);
  }).observe({ type: "longtask", buffered: true });
}

/**
 * In the page: the first frame painted after every chart on screen holds `count` points (`screen`), and the first
 * after every chart of the page does (`every`). A chart sets data-points once its plot has drawn. Its plot is
 * created when the browser's first layout finds it on screen; a chart found off screen says so with
 * data-plot-waiting and is drawn later, one per idle moment (lib/charts/plot-turns.ts): `screen` waits for every
 * chart but those, so it is the frame the user sees first, with all the charts in the window drawn; `every` is the
 * same end point bench:web measured before 2026-11-27 23:00 (every chart of the page drawn).
 */
function paintedWith(count: number): Promise<{ screen: number; every: number; onScreen: number }> {
  const charts = () => [...document.querySelectorAll<HTMLElement>("section.chart")];
  const holds = (chart: HTMLElement) => Number(chart.dataset.points ?? 0) >= count;
  const onScreen = () => {
    const all = charts();
    return all.some(holds) && all.every((chart) => holds(chart) || chart.dataset.plotWaiting !== undefined);
  };
  const every = () => charts().length > 0 && charts().every(holds);
  const frameAfter = (ready: () => boolean) =>
    new Promise<number>((resolve) => {
      const done = () => requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now())));
      if (ready()) return done();
      const observer = new MutationObserver(() => {
        if (!ready()) return;
        observer.disconnect();
        done();
      });
      observer.observe(document.body, {
        attributes: true,
        subtree: true,
        childList: true,
        attributeFilter: ["data-points", "data-plot-waiting"],
      });
    });
  // How many charts the first frame waited for: those the browser found on screen.
  let drawnOnScreen = 0;
  const screen = frameAfter(onScreen).then((at) => {
    drawnOnScreen = charts().filter((chart) => chart.dataset.plotWaiting === undefined).length;
    return at;
  });
  return Promise.all([screen, frameAfter(every)]).then(([at, all]) => ({
    screen: at,
    every: all,
    onScreen: drawnOnScreen,
  }));
}

/**
 * In the page: from the next mouseup, the time to the frame after every plot shows a new x range, and to the frame
 * after the latency distribution's histogram and heatmap have painted the range's samples (their data-painted, the
 * count drawn, leaves the whole run's); with the heatmap's own draw time for the range.
 */
function zoomPainted(): Promise<{ charts: number; distribution: number; heatmapDraw: number }> {
  const plots = () => [...document.querySelectorAll<HTMLElement>(".uplot")];
  const canvases = () =>
    ["distribution-histogram", "latency-heatmap"].map((id) =>
      document.querySelector<HTMLElement>(`[data-testid=${id}]`),
    );
  const before = plots().map((plot) => plot.dataset.xRange);
  const painted = canvases().map((canvas) => canvas?.dataset.painted);
  let upAt = 0;
  document.addEventListener("mouseup", () => (upAt = performance.now()), { capture: true, once: true });
  const afterTwoFrames = () =>
    new Promise<number>((resolve) =>
      requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - upAt))),
    );
  const charts = new Promise<number>((resolve) => {
    const check = () => {
      const ranges = plots().map((plot) => plot.dataset.xRange);
      const zoomed =
        upAt > 0 && ranges.every((range, index) => range && range !== before[index] && range === ranges[0]);
      if (!zoomed) return requestAnimationFrame(check);
      afterTwoFrames().then(resolve);
    };
    check();
  });
  const distribution = new Promise<number>((resolve) => {
    const check = () => {
      const now = canvases().map((canvas) => canvas?.dataset.painted);
      if (upAt === 0 || now.some((count, index) => !count || count === painted[index]))
        return requestAnimationFrame(check);
      afterTwoFrames().then(resolve);
    };
    check();
  });
  return Promise.all([charts, distribution]).then(([chartsMs, distributionMs]) => ({
    charts: chartsMs,
    distribution: distributionMs,
    heatmapDraw: Number(canvases()[1]?.dataset.paintMs),
  }));
}

/**
 * Drags across the middle third of the first chart, as a person zooms; answers mouseup → every chart zoomed, and
 * mouseup → the distribution (read before) repainted for the range.
 */
async function zoom(
  page: import("@playwright/test").Page,
): Promise<{ charts: number; distribution: number; heatmapDraw: number }> {
  // The distribution, read just before, scrolled the page down: the chart must be on screen for the mouse.
  await page.locator(".u-over").first().scrollIntoViewIfNeeded();
  const box = (await page.locator(".u-over").first().boundingBox())!;
  const waiting = page.evaluate(zoomPainted);
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width / 3, y);
  await page.mouse.down();
  await page.mouse.move(box.x + (box.width * 2) / 3, y, { steps: 5 });
  await page.mouse.up();
  return waiting;
}

interface Sample {
  zoom: number;
  /** Mouseup of the zoom → the range's histogram and heatmap painted; the heatmap's draw for the range. */
  zoomDistribution: number;
  zoomHeatmapDraw: number;
  /** Series answer → the charts on screen painted; → every chart of the page painted. */
  dataToPaint: number;
  dataToEveryChart: number;
  navToPaint: number;
  longestTask: number;
  appends: number[];
  charts: number;
  /** Charts on screen on the first paint (the rest are drawn after it). */
  onScreen: number;
  lines: number;
  /** Click on "Read the distribution so far" → histogram and heatmap painted; and each canvas's own draw. */
  distributionToPaint: number;
  histogramDraw: number;
  heatmapDraw: number;
  heatmapCells: number;
}

/** Reads the live run's distribution with its button and waits for both canvases to have painted it. */
async function measureDistribution(page: import("@playwright/test").Page, seconds: number) {
  await page.getByTestId("distribution-read").scrollIntoViewIfNeeded();
  const [clicked, result] = await Promise.all([
    page.evaluate(
      () =>
        new Promise<number>((resolve) =>
          document
            .querySelector("[data-testid=distribution-read]")!
            .addEventListener("click", () => resolve(performance.now()), { once: true }),
        ),
    ),
    (async () => {
      await page.getByTestId("distribution-read").click();
      return page.evaluate(
        () =>
          new Promise<{ at: number; histogram: number; heatmap: number }>((resolve) => {
            const done = () => {
              const histogram = document.querySelector<HTMLElement>(
                "[data-testid=distribution-histogram][data-painted]",
              );
              const heatmap = document.querySelector<HTMLElement>("[data-testid=latency-heatmap][data-painted]");
              if (!histogram || !heatmap) return requestAnimationFrame(done);
              requestAnimationFrame(() =>
                requestAnimationFrame(() =>
                  resolve({
                    at: performance.now(),
                    histogram: Number(histogram.dataset.paintMs),
                    heatmap: Number(heatmap.dataset.paintMs),
                  }),
                ),
              );
            };
            done();
          }),
      );
    })(),
  ]);
  const answer = distribution(seconds);
  return {
    distributionToPaint: result.at - clicked,
    histogramDraw: result.histogram,
    heatmapDraw: result.heatmap,
    heatmapCells: answer.heatmap.counts.flat().filter((count) => count > 0).length,
  };
}

async function measure(browser: Browser, baseUrl: string, seconds: number): Promise<Sample> {
  const now = Date.now();
  const points = history(seconds, now);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // tsx compiles named functions with esbuild's __name helper; the functions handed to the page need it there too.
  await context.addInitScript({ content: "globalThis.__name = (fn) => fn;" });
  const page = await context.newPage();
  await page.addInitScript(instrument);
  const json = (body: unknown) => ({ status: 200, contentType: "application/json", body: JSON.stringify(body) });
  await page.route("**/api/me", (route) => route.fulfill(json(me)));
  await page.route("**/api/agents", (route) => route.fulfill(json({ agents })));
  await page.route(`**/api/runs/${RUN_ID}`, (route) => route.fulfill(json(liveRun(seconds, now))));
  await page.route(`**/api/runs/${RUN_ID}/series`, (route) => route.fulfill(json({ runId: RUN_ID, points })));
  const latencies = JSON.stringify(distribution(seconds));
  await page.route(`**/api/runs/${RUN_ID}/distribution?*`, (route) => {
    const query = new URL(route.request().url()).searchParams;
    const range = query.has("from") ? { from: Number(query.get("from")), to: Number(query.get("to")) } : undefined;
    const body = range ? JSON.stringify(distribution(seconds, range)) : latencies;
    return route.fulfill({ status: 200, contentType: "application/json", body });
  });
  await page.goto(`${baseUrl}/runs/${RUN_ID}`);
  const { screen: painted, every: everyPainted, onScreen } = await page.evaluate(paintedWith, seconds);
  const initial = await page.evaluate(() => {
    const bench = (window as unknown as { __bench: { seriesAt: number[]; longTasks: number[] } }).__bench;
    const charts = document.querySelectorAll("section.chart").length;
    // Each uPlot legend lists the time first, then one row per line.
    const lines = document.querySelectorAll(".u-legend .u-series").length - charts;
    return { seriesAt: bench.seriesAt[0] ?? 0, longestTask: Math.max(0, ...bench.longTasks), charts, lines };
  });

  const appends: number[] = [];
  const start = Math.floor(now / 1000);
  for (let index = 0; index < APPENDS; index++) {
    const envelope = JSON.stringify({
      seq: index + 1,
      message: { type: "point", point: point(start + index, seconds + index) },
    });
    appends.push(
      await page.evaluate(
        async ({ envelope, count }) => {
          const bench = (
            window as unknown as { __bench: { sources: { onmessage: ((event: { data: string }) => void) | null }[] } }
          ).__bench;
          const before = performance.now();
          bench.sources[bench.sources.length - 1]!.onmessage?.({ data: envelope });
          const charts = () => [...document.querySelectorAll<HTMLElement>("section.chart")];
          await new Promise<void>((resolve) => {
            const check = () =>
              charts().every((chart) => Number(chart.dataset.points ?? 0) >= count)
                ? resolve()
                : requestAnimationFrame(check);
            check();
          });
          await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
          return performance.now() - before;
        },
        { envelope, count: seconds + index + 1 },
      ),
    );
  }
  // The whole run's distribution first, then the zoom: its range is read again at once (the URL's range changed).
  const drawn = await measureDistribution(page, seconds);
  const zoomed = await zoom(page);
  await context.close();
  return {
    zoom: zoomed.charts,
    zoomDistribution: zoomed.distribution,
    zoomHeatmapDraw: zoomed.heatmapDraw,
    dataToPaint: painted - initial.seriesAt,
    dataToEveryChart: everyPainted - initial.seriesAt,
    navToPaint: painted,
    longestTask: initial.longestTask,
    appends,
    charts: initial.charts,
    onScreen,
    lines: initial.lines,
    ...drawn,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;
const ms = (value: number) => `${Math.round(value)} ms`;
const label = (seconds: number) => (seconds >= 3600 ? `${seconds / 3600} h` : `${seconds / 60} min`);

async function main() {
  buildIfStale();
  const port = await freePort();
  const web = await startWeb(port);
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: ["--no-sandbox", "--disable-gpu"] });
  const rows: string[] = [];
  const drawRows: string[] = [];
  try {
    for (const seconds of SIZES) {
      const samples: Sample[] = [];
      for (let run = 0; run < REPEATS; run++) samples.push(await measure(browser, `http://127.0.0.1:${port}`, seconds));
      const appends = samples.flatMap((sample) => sample.appends);
      const { charts, lines, onScreen } = samples[0]!;
      rows.push(
        `| ${label(seconds)} | ${seconds.toLocaleString("en-US")} | ${charts} charts, ${lines} lines | ${onScreen} | ${ms(median(samples.map((s) => s.dataToPaint)))} | ${ms(median(samples.map((s) => s.dataToEveryChart)))} | ${ms(median(samples.map((s) => s.navToPaint)))} | ${ms(median(samples.map((s) => s.longestTask)))} | ${ms(quantile(appends, 0.5))} / ${ms(quantile(appends, 0.95))} / ${ms(Math.max(...appends))} | ${ms(median(samples.map((s) => s.zoom)))} |`,
      );
      const decimal = (value: number) => `${value.toFixed(1)} ms`;
      drawRows.push(
        `| ${label(seconds)} | ${samples[0]!.heatmapCells.toLocaleString("en-US")} | ${ms(median(samples.map((s) => s.distributionToPaint)))} | ${decimal(median(samples.map((s) => s.histogramDraw)))} | ${decimal(median(samples.map((s) => s.heatmapDraw)))} | ${ms(median(samples.map((s) => s.zoomDistribution)))} | ${decimal(median(samples.map((s) => s.zoomHeatmapDraw)))} |`,
      );
    }
  } finally {
    await browser.close();
    web.kill("SIGTERM");
  }
  console.log(
    `\nRun page, Chromium ${browser.version()}, 1280×900, median of ${REPEATS} loads; appends: ${APPENDS} per load\n`,
  );
  console.log(
    "| history | points | drawn | charts on screen | series answer → painted (charts on screen) | series answer → every chart painted | navigation → painted | longest task | live append p50 / p95 / max | zoom → painted |",
  );
  console.log("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const row of rows) console.log(row);
  console.log(`\nLatency distribution of the same run (round trips), median of ${REPEATS} reads\n`);
  console.log(
    "| history | heatmap cells | click → histogram and heatmap painted | histogram draw | heatmap draw | zoom → range's histogram and heatmap painted | range's heatmap draw |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const row of drawRows) console.log(row);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
