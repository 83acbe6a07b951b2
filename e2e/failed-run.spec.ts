// A run that fails after it started (issue 27 §2, "honest failed-run reports"): a plan no agent may run is now
// refused before a run exists, so this journey makes a run fail the way one does in the field: the server under test
// dies mid-run (SIGKILL of the reference target), its clients' sockets close and reconnecting is refused. The report
// must say what failed, when and why, once, and claim nothing the evidence does not hold (no pass, no "all connected",
// the plan's SLOs judged, its times in order). Screenshots go to e2e/artifacts/failed-run-*.png.
import { expect, test } from "./support/test";
import { createPlan, json, pageJourney, stamp, startRun, url } from "./support/e2e-env";

const journey = pageJourney("failed-run");
const { startTargetProcess, shot } = journey;

interface RunAnswer {
  status: string;
  startedAt: string | null;
  endedAt: string | null;
  verdict: {
    passed: boolean;
    outcome?: string;
    reasons: string[];
    slos: { metric: string; passed: boolean; status?: string; firstBreachAt: number | null }[];
  } | null;
  summary: { connectionsFailed: number; connectionsDropped?: number } | null;
}

test("failed run: the target dies mid-run, and the report says what failed, when and why, with no figure better than the evidence", async () => {
  test.setTimeout(180_000);
  const page = await journey.signUpWithAgent("Failure Reader", "failed-run");
  const target = await startTargetProcess();
  const plan = await createPlan(page, {
    name: `Target dies ${stamp}`,
    target: { protocol: "websocket", url: target.url },
    scenario: { kind: "ping-pong", intervalMs: 200, messageBytes: 64 },
    load: { clients: 4, durationSec: 12 },
    slos: [
      { metric: "error-rate", below: 0.01 },
      { metric: "rtt-p99-ms", below: 2000 },
    ],
  });
  const run = await startRun(page, plan.id);
  const read = async () => json<RunAnswer>(await page.request.get(url(`/api/runs/${run.id}`)), "read run");
  // Some seconds of healthy load first, so the report has a before and an after.
  await expect
    .poll(
      async () =>
        (await json<{ points: unknown[] }>(await page.request.get(url(`/api/runs/${run.id}/series`)), "series")).points
          .length,
      { timeout: 60_000, intervals: [500] },
    )
    .toBeGreaterThanOrEqual(3);
  const killedAt = Math.floor(Date.now() / 1000);
  process.kill(target.pid, "SIGKILL");

  await page.goto(url(`/runs/${run.id}`));
  await expect(page.getByTestId("run-status")).toHaveAttribute("data-status", /^(finished|failed)$/, {
    timeout: 60_000,
  });
  const ended = await read();
  expect(ended.verdict, "the run has a verdict").not.toBeNull();
  // Not a pass, and the SLO the dead server broke is judged broken, from about when it died (not before).
  expect(ended.verdict!.passed).toBe(false);
  expect(ended.verdict!.outcome).not.toBe("passed");
  const errorRate = ended.verdict!.slos.find((slo) => slo.metric === "error-rate");
  expect(errorRate?.passed).toBe(false);
  expect(errorRate!.firstBreachAt).toBeGreaterThanOrEqual(killedAt - 2);
  // The round trip SLO, timed only while the server lived, is not "met": the seconds no client was connected are not judged.
  const roundTrip = ended.verdict!.slos.find((slo) => slo.metric === "rtt-p99-ms");
  expect(roundTrip?.status).not.toBe("met");
  expect(roundTrip?.passed).toBe(false);
  // The connections the dead server dropped are counted, not "0 connection failures" and nothing else.
  expect(ended.summary?.connectionsDropped ?? 0).toBeGreaterThan(0);
  // The API keeps its times ISO (machines read them); the page below shows them in the reader's locale.
  expect(ended.verdict!.reasons.join("\n")).toMatch(/connected at \d{4}-\d{2}-\d{2}T/);
  await expect(page.getByTestId("summary-connections-dropped")).not.toHaveText(/^\D*0$/);
  // The run page: the agent that ran it is not "busy" with a run that ended.
  await expect(page.getByTestId("run-agents")).not.toContainText("busy");
  await shot("run");

  await page.goto(url(`/runs/${run.id}/report`));
  const report = page.getByTestId("report");
  await expect(page.getByTestId("report-verdict")).toHaveAttribute("data-passed", "false");
  // Why: the reasons name the broken SLO; each said once.
  const reasons = page.getByTestId("verdict-reasons");
  await expect(reasons).toContainText(/error rate/i);
  // What failed and when: the clients the dead server dropped, counted against the plan's, not "all connected".
  await expect(reasons).toContainText(/only 0 of 4 clients were connected at /);
  await expect(report).not.toContainText("all connected");
  // Its time in the reader's locale, never ISO UTC.
  await expect(reasons).not.toContainText(/\d{4}-\d{2}-\d{2}T\d{2}:/);
  const reasonTexts = await reasons.locator("li").allInnerTexts();
  expect(new Set(reasonTexts).size).toBe(reasonTexts.length);
  // What and when: the plan's SLOs judged (never "sets no SLOs"), the error-rate row broken; the times in order.
  await expect(report).not.toContainText("The plan sets no SLOs");
  await expect(page.locator('[data-testid="slo-row"][data-metric="error-rate"]')).toHaveAttribute(
    "data-status",
    "broken",
  );
  // The round trip SLO held only the seconds before the server died: "no data", not "met, held all 4 s measured".
  const roundTripRow = page.locator('[data-testid="slo-row"][data-metric="rtt-p99-ms"]');
  await expect(roundTripRow).toHaveAttribute("data-status", "no data");
  await expect(roundTripRow).toContainText(/not judged for \d+ of \d+ s under load: no client was connected/);
  await expect(roundTripRow).not.toContainText("held all");
  await expect(page.getByTestId("report-times")).toContainText("started");
  expect(Date.parse(ended.endedAt!)).toBeGreaterThan(Date.parse(ended.startedAt!));
  // No figure better than the evidence: no pass, no "as planned", and the charts show the seconds it has.
  await expect(page.getByTestId("report-sentence")).not.toContainText(/passed|as planned/i);
  // The headline says what the run held and when it lost it, never "at 4 clients" of a run that lost them.
  await expect(page.getByTestId("report-sentence")).not.toContainText("at 4 clients");
  await expect(page.getByTestId("report-sentence")).toContainText(/with at most \d of 4 clients connected, 0 from /);
  await expect(page.getByTestId("report-sentence")).not.toContainText(/\d{4}-\d{2}-\d{2}T\d{2}:/);
  await expect(report).not.toContainText("Waiting for the first second");
  await shot("report");
});
