// Issue 18, the workflow: a movement-sync run's page leads with broadcast latency and reach, has no empty
// round-trip chart, draws each SLO's threshold on its metric's chart and counts the seconds that met or breached
// each SLO while the run goes on, and its rooms so far; its summary names broadcast p99 and reach. Screenshots in e2e/artifacts/.
import { join } from "node:path";
import { expect, test } from "./support/test";
import { artifacts, createPlan, pageJourney, stamp, startRun, url } from "./support/e2e-env";

const journey = pageJourney("scenario-views");

test("scenario views: a movement-sync run leads with broadcasts, draws its SLOs on their charts and tallies them live", async () => {
  test.setTimeout(180_000);
  const { page, targetUrl } = await journey.signUpWithAgentAndTarget("Scenario Viewer", "scenario-views");
  const plan = await createPlan(page, {
    name: `Movement ${stamp}`,
    target: { protocol: "websocket", url: targetUrl },
    scenario: { kind: "movement-sync", roomSize: 4, updateHz: 10, messageBytes: 64 },
    load: { clients: 8, durationSec: 20 },
    slos: [
      { metric: "broadcast-p99-ms", below: 2000 },
      { metric: "loss-rate", below: 0.5 },
    ],
  });
  const run = await startRun(page, plan.id);
  await page.goto(url(`/runs/${run.id}`));

  // Live: each SLO with the seconds so far that met it; a loopback target meets both.
  const rows = page.getByTestId("slo-live-row");
  await expect(rows).toHaveCount(2, { timeout: 60_000 });
  await expect(rows.first()).toContainText("Broadcast p99 below 2,000 ms");
  await expect(rows.first().getByTestId("slo-live-met")).toHaveText(/^met [1-9]\d* s$/, { timeout: 60_000 });
  await expect(rows.first().getByTestId("slo-live-breached")).toHaveText("breached 0 s");
  // Its rooms while the run goes (issue 28 §1): the agents' newest reports as their snapshots arrive, said to be so far.
  await expect(page.getByTestId("rooms")).toHaveAttribute("data-live", "true", { timeout: 30_000 });
  await expect(page.getByTestId("rooms-table").locator("tbody tr")).toHaveCount(2);
  await expect(page.getByTestId("rooms")).toContainText("so far");
  await page.screenshot({ path: join(artifacts, "scenario-views-live.png"), fullPage: true });

  // The broadcast chart leads, with its SLO's line; reach next; no round-trip chart.
  const charts = page.getByTestId("chart-grid").locator(":scope > section.chart");
  await expect(charts.first()).toHaveAttribute("data-testid", "chart-latency");
  await expect(charts.nth(1)).toHaveAttribute("data-testid", "chart-delivery");
  await expect(page.getByTestId("chart-rtt")).toHaveCount(0);
  await expect(page.getByTestId("chart-latency")).toHaveAttribute("data-thresholds", "1");
  await expect(page.getByTestId("chart-latency-thresholds")).toHaveText("SLO: Broadcast p99 < 2,000 ms");
  await expect(page.getByTestId("chart-rates")).toHaveAttribute("data-thresholds", "1");

  // Ended: the summary names the scenario's own figures, not round trips; the live tally gives way to the verdict.
  await expect(page.getByTestId("run-status")).toHaveText(/finished/, { timeout: 90_000 });
  await expect(page.getByTestId("summary-broadcast-p99")).toHaveText(/ms$/, { timeout: 15_000 });
  await expect(page.getByTestId("summary-broadcast-reach")).toHaveText(/%$/);
  await expect(page.getByTestId("summary-rtt-p99")).toHaveCount(0);
  await expect(page.getByTestId("slo-live")).toHaveCount(0);
  // Its rooms, worst first, with the spread across them in one line (issue 28 §1): 8 players in rooms of 4.
  await expect(page.getByTestId("rooms-spread")).toHaveText(/^reach [\d.–]+ %, p99 [\d.–]+ ms across 2 rooms$/);
  await expect(page.getByTestId("rooms-table").locator("tbody tr")).toHaveCount(2);
  await expect(page.getByTestId("room-0")).toContainText("4");
  await page.getByTestId("rooms").screenshot({ path: join(artifacts, "scenario-views-rooms.png") });
  await page.screenshot({ path: join(artifacts, "scenario-views-ended.png"), fullPage: true });
});
