// A run that fails after it started (issue 27 §2, "honest failed-run reports"): a plan no agent may run is now
// refused before a run exists, so this journey makes a run fail the way one does in the field: the server under test
// dies mid-run (SIGKILL of the reference target), its clients' sockets close and reconnecting is refused. The report
// must say what failed, when and why, once, and claim nothing the evidence does not hold (no pass, no "all connected",
// the plan's SLOs judged, its times in order). Screenshots go to e2e/artifacts/failed-run-*.png.
import { join } from "node:path";
import { expect, test } from "./support/test";
import { artifacts, baseUrl, enrolAgent, json, pageJourney, stamp, url, signUp } from "./support/e2e-env";

const journey = pageJourney("failed-run");
const { start, startTargetProcess, scratch } = journey;
const write = { headers: { origin: baseUrl } };
const shot = (name: string) => journey.page().screenshot({ path: join(artifacts, `failed-run-${name}.png`), fullPage: true });

interface RunAnswer {
  status: string;
  startedAt: string | null;
  endedAt: string | null;
  verdict: { passed: boolean; outcome?: string; reasons: unknown[]; slos: { metric: string; passed: boolean; firstBreachAt: number | null }[] } | null;
}

test("failed run: the target dies mid-run, and the report says what failed, when and why, with no figure better than the evidence", async () => {
  const page = journey.page();
  test.setTimeout(180_000);
  await signUp(page, "Failure Reader", "failed-run");
  await enrolAgent(page, start, join(scratch, "agent.json"));
  const target = await startTargetProcess();
  const plan = await json<{ id: string }>(
    await page.request.post(url("/api/plans"), {
      data: {
        name: `Target dies ${stamp}`,
        target: { protocol: "websocket", url: target.url },
        scenario: { kind: "ping-pong", intervalMs: 200, messageBytes: 64 },
        load: { clients: 4, durationSec: 12 },
        slos: [{ metric: "error-rate", below: 0.01 }, { metric: "rtt-p99-ms", below: 2000 }],
      },
      ...write,
    }),
    "create plan",
  );
  const run = await json<{ id: string }>(await page.request.post(url(`/api/plans/${plan.id}/runs`), write), "start run");
  const read = async () => json<RunAnswer>(await page.request.get(url(`/api/runs/${run.id}`)), "read run");
  // Some seconds of healthy load first, so the report has a before and an after.
  await expect
    .poll(async () => (await json<{ points: unknown[] }>(await page.request.get(url(`/api/runs/${run.id}/series`)), "series")).points.length, { timeout: 60_000, intervals: [500] })
    .toBeGreaterThanOrEqual(3);
  const killedAt = Math.floor(Date.now() / 1000);
  process.kill(target.pid, "SIGKILL");

  await page.goto(url(`/runs/${run.id}`));
  await expect(page.getByTestId("run-status")).toHaveAttribute("data-status", /^(finished|failed)$/, { timeout: 60_000 });
  const ended = await read();
  expect(ended.verdict, "the run has a verdict").not.toBeNull();
  // Not a pass, and the SLO the dead server broke is judged broken, from about when it died (not before).
  expect(ended.verdict!.passed).toBe(false);
  expect(ended.verdict!.outcome).not.toBe("passed");
  const errorRate = ended.verdict!.slos.find((slo) => slo.metric === "error-rate");
  expect(errorRate?.passed).toBe(false);
  expect(errorRate!.firstBreachAt).toBeGreaterThanOrEqual(killedAt - 2);
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
  const reasonTexts = await reasons.locator("li").allInnerTexts();
  expect(new Set(reasonTexts).size).toBe(reasonTexts.length);
  // What and when: the plan's SLOs judged (never "sets no SLOs"), the error-rate row broken; the times in order.
  await expect(report).not.toContainText("The plan sets no SLOs");
  await expect(page.locator('[data-testid="slo-row"][data-metric="error-rate"]')).toHaveAttribute("data-status", "broken");
  await expect(page.getByTestId("report-times")).toContainText("started");
  expect(Date.parse(ended.endedAt!)).toBeGreaterThan(Date.parse(ended.startedAt!));
  // No figure better than the evidence: no pass, no "as planned", and the charts show the seconds it has.
  await expect(page.getByTestId("report-sentence")).not.toContainText(/passed|as planned/i);
  await expect(report).not.toContainText("Waiting for the first second");
  await shot("report");
});
