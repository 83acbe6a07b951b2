// Looking closer at a finished run (issue 28 §1): a drag across one chart zooms every chart of the run page into
// those seconds, the range goes to the URL (?from=&to=) and survives a reload, the summary is recomputed for it by
// the API ("for 2 s – 6 s"), Reset zooms out, and a note's timed line is marked on every chart with its words on
// hover and focus; the cursors move together on every chart, the latency heatmap's too (on clock-time ticks as
// theirs); the report's PDF button says the PDF is the whole
// run's; a share link opened with the range zooms its charts and its latency distribution; Compare's charts zoom
// the same way. Screenshots go to e2e/artifacts/zoom-*.png.
import type { Locator, Page } from "@playwright/test";
import { expect, test } from "./support/test";
import { finishedPingPongRuns, json, pageJourney, stamp, url, write } from "./support/e2e-env";

const journey = pageJourney("zoom");
const { shot } = journey;

/** The x range a chart's plot shows, as its draw left it on the plot ("min..max", epoch seconds). */
const xRange = (chart: Locator) => chart.locator(".uplot").getAttribute("data-x-range");

/**
 * The second a chart's vertical cursor line points at (epoch seconds, from where it stands on the plot and the
 * plot's x range), or null while it is off the plot. Charts' plots differ in width (their y axes do), so synced
 * cursors agree in seconds, not in pixels.
 */
async function cursorSecond(chart: Locator): Promise<number | null> {
  return chart.locator(".uplot").evaluate((plot) => {
    const line = plot.querySelector<HTMLElement>(".u-cursor-x");
    const over = plot.querySelector<HTMLElement>(".u-over");
    const left = /translate\((-?[\d.]+)px/.exec(line?.style.transform ?? "")?.[1];
    if (!line || !over || line.classList.contains("u-off") || left === undefined) return null;
    const [min, max] = (plot.dataset.xRange ?? "").split("..").map(Number) as [number, number];
    return min + (Number(left) / over.clientWidth) * (max - min);
  });
}

/** Drags across the plot of `chart` from `fromShare` to `toShare` of its width, as a person zooms. */
async function drag(page: Page, chart: Locator, fromShare: number, toShare: number) {
  const over = chart.locator(".u-over");
  await over.scrollIntoViewIfNeeded();
  const box = (await over.boundingBox())!;
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width * fromShare, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * ((fromShare + toShare) / 2), y, { steps: 4 });
  await page.mouse.move(box.x + box.width * toShare, y, { steps: 4 });
  await page.mouse.up();
}

test("zoom: a drag on one chart zooms every chart and the summary, kept in the URL, reset, with a note marked on every chart", async () => {
  test.setTimeout(180_000);
  const { page, targetUrl } = await journey.signUpWithAgentAndTarget("Zoomer", "zoom");
  const { runIds } = await finishedPingPongRuns(page, { name: `Zoom ${stamp}`, targetUrl, durationSec: 8, count: 2 });
  const runId = runIds[0]!;
  // A note whose second line is timed: marked at 3 s on every chart.
  await json(
    await page.request.patch(url(`/api/runs/${runId}`), {
      data: { note: "Build 1.4.2 on the new lobby pool.\n0:03 cache flushed on the lobby" },
      ...write,
    }),
    "note",
  );

  await page.goto(url(`/runs/${runId}`));
  const rtt = page.getByTestId("chart-rtt");
  const connections = page.getByTestId("chart-connections");
  await expect(rtt).toHaveAttribute("data-points", /^[6-9]$/);
  const wholeX = await xRange(rtt);
  const summary = page.getByTestId("run-summary");
  const wholeSent = await summary.getByTestId("summary-messages-sent").textContent();

  // The note's timed line on every chart: in its list of annotations, its words on focus, on hover over its line.
  for (const chart of [rtt, connections, page.getByTestId("chart-messages")]) {
    await expect(chart.getByTestId(/-annotations$/).getByRole("button", { name: /cache flushed/ })).toHaveText(
      /\+3 s cache flushed on the lo/,
    );
  }
  const noteButton = rtt.getByRole("button", { name: /cache flushed/ });
  await noteButton.focus();
  await expect(rtt.getByTestId("chart-rtt-annotation-words")).toHaveText("+3 s: Note: 0:03 cache flushed on the lobby");
  await expect(noteButton).toHaveAttribute("aria-pressed", "true");
  await noteButton.blur();
  await expect(rtt.getByTestId("chart-rtt-annotation-words")).toHaveText(/^Point at a marker/);
  await noteButton.hover();
  await expect(rtt.getByTestId("chart-rtt-annotation-words")).toHaveText("+3 s: Note: 0:03 cache flushed on the lobby");
  await page.mouse.move(0, 0);
  await expect(rtt.locator(".uplot")).toHaveAttribute("data-label-overlaps", "0");
  await shot("whole-run");

  // Zoom: a drag across the middle of the RTT chart.
  await drag(page, rtt, 0.3, 0.75);
  await expect(page).toHaveURL(/[?&]from=\d+&to=\d+/);
  const query = new URL(page.url()).searchParams;
  const [from, to] = [Number(query.get("from")), Number(query.get("to"))];
  expect(from).toBeGreaterThan(0);
  expect(to).toBeGreaterThan(from);
  expect(to).toBeLessThan(8);
  await expect(page.getByTestId("zoom-range")).toContainText(`${from} s – ${to} s`);
  // Every chart follows: the same x range, narrower than the whole run's.
  const zoomedX = await xRange(rtt);
  expect(zoomedX).not.toBe(wholeX);
  const [low, high] = zoomedX!.split("..").map(Number) as [number, number];
  expect(high - low).toBe(to - from);
  for (const chart of [
    connections,
    page.getByTestId("chart-messages"),
    page.getByTestId("chart-bytes"),
    page.getByTestId("chart-errors"),
  ]) {
    await expect(chart.locator(".uplot")).toHaveAttribute("data-x-range", zoomedX!);
  }
  // The summary is the range's, recomputed by the API from the range's histograms.
  await expect(summary.getByTestId("summary-range")).toHaveText(` for ${from} s – ${to} s`);
  await expect(summary.getByTestId("summary-duration")).toHaveText(`${to - from} s`);
  await expect(summary.getByTestId("summary-messages-sent")).not.toHaveText(wholeSent!);
  const rangeAnswer = await json<{ summary: { messagesSent: number } }>(
    await page.request.get(url(`/api/runs/${runId}/summary?from=${from}&to=${to}`)),
    "range summary",
  );
  await expect(summary.getByTestId("summary-messages-sent")).toHaveText(
    new Intl.NumberFormat().format(rangeAnswer.summary.messagesSent),
  );
  await shot("zoomed");

  // Kept in the URL: a reload (or the link sent to a colleague) opens the same zoom.
  await page.reload();
  await expect(page.getByTestId("chart-connections").locator(".uplot")).toHaveAttribute("data-x-range", zoomedX!);
  await expect(page.getByTestId("run-summary").getByTestId("summary-range")).toHaveText(` for ${from} s – ${to} s`);

  // Reset: the whole run again, and the URL without a range.
  await page.getByTestId("zoom-reset").click();
  await expect(page).not.toHaveURL(/from=/);
  await expect(page.getByTestId("chart-rtt").locator(".uplot")).toHaveAttribute("data-x-range", wholeX!);
  await expect(page.getByTestId("run-summary").getByTestId("summary-range")).toHaveCount(0);
  await expect(page.getByTestId("run-summary").getByTestId("summary-messages-sent")).toHaveText(wholeSent!);
  await expect(page.getByTestId("zoom-range")).toHaveCount(0);

  // The report page zooms the same way, from the same URL parameters.
  await page.goto(url(`/runs/${runId}/report?from=${from}&to=${to}`));
  await expect(page.getByTestId("chart-rtt").locator(".uplot")).toHaveAttribute("data-x-range", zoomedX!);
  await expect(page.getByTestId("run-summary").getByTestId("summary-range")).toHaveText(` for ${from} s – ${to} s`);
  // The PDF is the whole run's document: on a zoomed report its button says so.
  await expect(page.getByTestId("download-pdf")).toHaveText("Download PDF (whole run)");
  // One cursor across the charts: pointing at a second on the round trips shows it on the connections chart.
  const reportRtt = page.getByTestId("chart-rtt");
  const reportConnections = page.getByTestId("chart-connections");
  const heatmap = page.getByTestId("latency-distribution");
  await expect(heatmap.getByTestId("latency-heatmap")).toHaveAttribute("data-painted", /^\d+$/);
  const over = reportRtt.locator(".u-over");
  await over.scrollIntoViewIfNeeded();
  const box = (await over.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2);
  const pointed = await cursorSecond(reportRtt);
  expect(pointed).not.toBeNull();
  // The same second on the other chart (to a pixel's worth: a zoomed plot is ~4 s over ~1,000 px).
  await expect
    .poll(async () => Math.abs(((await cursorSecond(reportConnections)) ?? Number.NaN) - pointed!))
    .toBeLessThan(0.05);
  // The latency heatmap is on the same cursor: its line stands at the second the line charts point at (the whole
  // second their legends read).
  await expect(heatmap.getByTestId("heatmap-cursor")).toBeVisible();
  const heatmapSecond = async () => Number(await heatmap.getByTestId("heatmap-cursor").getAttribute("data-second"));
  expect(Math.abs((await heatmapSecond()) - pointed!)).toBeLessThanOrEqual(0.6);
  // Its time axis reads as the line charts' do: times of day, shaped as the legend's time, not seconds since the start.
  const legendTime = (await reportRtt.locator(".u-legend .u-series").first().locator(".u-value").textContent())!;
  await expect(heatmap.getByTestId("heatmap-cursor-time")).toHaveText(legendTime);
  const clockShape = new RegExp(`^${legendTime.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\d+/g, "\\d+")}$`);
  const ticks = (await heatmap.getByTestId("latency-heatmap").getAttribute("data-x-ticks"))!.split("|");
  expect(ticks.length).toBeGreaterThan(1);
  for (const tick of ticks) expect(tick).toMatch(clockShape);
  // Pointing at the heatmap moves the line charts' cursor to the same second.
  await heatmap.getByTestId("latency-heatmap").scrollIntoViewIfNeeded();
  const heat = (await heatmap.getByTestId("latency-heatmap").boundingBox())!;
  await page.mouse.move(heat.x + heat.width * 0.6, heat.y + heat.height / 2);
  await expect
    .poll(async () => Math.abs(((await cursorSecond(reportConnections)) ?? Number.NaN) - (await heatmapSecond())))
    .toBeLessThanOrEqual(0.6);
  await shot("report-zoomed");
  await page.mouse.move(0, 0);

  // A share link opened with the range: its charts, summary and latency distribution are the range's.
  const link = await json<{ url: string }>(
    await page.request.post(url(`/api/runs/${runId}/share-links`), { data: {}, ...write }),
    "share link",
  );
  const sharePath = new URL(link.url).pathname;
  await page.goto(url(`${sharePath}?from=${from}&to=${to}`));
  await expect(page.getByTestId("chart-rtt").locator(".uplot")).toHaveAttribute("data-x-range", zoomedX!);
  await expect(page.getByTestId("run-summary").getByTestId("summary-range")).toHaveText(` for ${from} s – ${to} s`);
  const shared = page.getByTestId("latency-distribution");
  await expect(shared.getByTestId("distribution-range")).toContainText(/^Seconds 0:0\d to 0:0\d of the run/);
  await expect(shared.getByTestId("distribution-stats")).toHaveText(/^[\d,.\s]+ samples · p50 /);
  const sharedSamples = (await shared.getByTestId("distribution-stats").textContent())!.split(" samples")[0];
  await expect(shared.getByTestId("latency-heatmap")).toHaveAttribute(
    "data-painted",
    sharedSamples!.replace(/[^\d]/g, ""),
  );
  await shot("share-zoomed");
  await page.getByTestId("zoom-reset").click();
  await expect(shared.getByTestId("distribution-range")).toContainText("The whole run");
  await expect(shared.getByTestId("distribution-stats")).not.toHaveText(new RegExp(`^${sharedSamples} samples`));

  // Compare: its charts (seconds since each run's start) zoom together too, kept in the URL, and reset.
  await page.goto(url(`/compare?ids=${runIds.join(",")}`));
  const compared = page.getByTestId("compare-chart");
  await expect(compared).toHaveCount(3);
  const compareWhole = await compared.first().locator(".uplot").getAttribute("data-x-range");
  await drag(page, compared.first(), 0.3, 0.75);
  await expect(page).toHaveURL(/[?&]from=\d+&to=\d+/);
  const compareQuery = new URL(page.url()).searchParams;
  const [cFrom, cTo] = [Number(compareQuery.get("from")), Number(compareQuery.get("to"))];
  expect(cTo).toBeGreaterThan(cFrom);
  await expect(page.getByTestId("zoom-range")).toContainText("since each run's start");
  await expect(compared.first().locator(".uplot")).toHaveAttribute("data-x-range", `${cFrom - 0.5}..${cTo - 0.5}`);
  for (const chart of await compared.all())
    await expect(chart.locator(".uplot")).toHaveAttribute("data-x-range", `${cFrom - 0.5}..${cTo - 0.5}`);
  await shot("compare-zoomed");
  await page.getByTestId("zoom-reset").click();
  await expect(page).not.toHaveURL(/from=/);
  await expect(compared.first().locator(".uplot")).toHaveAttribute("data-x-range", compareWhole!);
});
