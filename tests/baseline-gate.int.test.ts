import { promises as fs } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import type { PlanSpecInput } from "@throng/protocol/plan";
import { PlanView } from "@throng/protocol/api";
import type { RunView } from "@throng/protocol/run";
import { ExitCode } from "../cli/src/cli-exit-codes";
import type { BaselineResult } from "../cli/src/baseline-gate";
import type { Browser } from "./fault/support/api-client";
import { type CliBed, spawnThrongRun, startCliBed } from "./support/cli-bed";
import { startReferenceTarget } from "./support/control-plane";
import { cleanUpAfterFile } from "./support/file-cleanups";

/**
 * The CI regression gate end to end (issue 28 §3): real api, workers and agent processes, the reference target with
 * and without an added reply delay, and `throng run --baseline … --max-regression …` as a CI job runs it. A run
 * worse than the plan's pinned baseline exits 99 and its JSON, JUnit and last line name the metric and the change;
 * a run within its allowance exits 0; a bad allowance exits 2 naming the flag. In the serial phase of `npm test`.
 */
/** Far above any second-to-second spread of a loopback round trip on a busy machine, so the change is not noise. */
const ADDED_DELAY_MS = 150;

const { cleanups, tails } = cleanUpAfterFile();
let bed: CliBed;
let browser: Browser;

/** The reference target with `args`, stopped with the file's other processes. */
const startTarget = (args: string[]) => startReferenceTarget(cleanups, args);

interface CliResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  json?: { run: RunView; baseline?: BaselineResult };
  junit?: string;
}

/** `throng run plan.json --wait --json … --junit … <args>`, as a CI job runs it. */
async function throngRun(plan: PlanSpecInput, ...args: string[]): Promise<CliResult> {
  const { cli, stdout, jsonPath, junitPath } = await spawnThrongRun(bed, cleanups, plan, { junit: true, args });
  const exit = await cli.exited;
  const json = await fs.readFile(jsonPath, "utf8").then(
    (text) => JSON.parse(text) as CliResult["json"],
    () => undefined,
  );
  const junit = await fs.readFile(junitPath, "utf8").catch(() => undefined);
  return {
    exitCode: exit.code,
    stdout: stdout(),
    stderr: cli.tail(),
    ...(json ? { json } : {}),
    ...(junit ? { junit } : {}),
  };
}

const plan = (targetUrl: string): PlanSpecInput => ({
  name: "lobby",
  target: { protocol: "websocket", url: targetUrl },
  // A send interval longer than the added delay, so the slow server's clients still send on schedule (ping-pong sends
  // again only once answered) and the slow run's own verdict passes: its 99 is the baseline's alone.
  scenario: { kind: "ping-pong", intervalMs: 400, messageBytes: 64 },
  load: { clients: 10, durationSec: 6 },
  slos: [
    { metric: "rtt-p99-ms", below: 2_000 },
    { metric: "error-rate", below: 0.05 },
  ],
});

/** throngRun of the plan "lobby" against `targetUrl`, gated on `baseline` ("pinned" or a run's id) with this allowance. */
const gatedRun = (targetUrl: string, baseline: string, maxRegression: string) =>
  throngRun(plan(targetUrl), "--plan-name", "lobby", "--baseline", baseline, "--max-regression", maxRegression);

const explain = (result: CliResult) =>
  `exit ${result.exitCode}\n${result.stdout}\n${result.stderr}\n${tails.map((t) => t()).join("\n")}`;

let fastUrl: string;
let slowUrl: string;
let planId: string;
let baselineRunId: string;

beforeAll(async () => {
  bed = await startCliBed(cleanups, tails, "throng-baseline-");
  ({ browser } = bed);
  [fastUrl, slowUrl] = await Promise.all([startTarget([]), startTarget(["--delay-ms", String(ADDED_DELAY_MS)])]);
}, 180_000);

describe("throng run --baseline --max-regression: the CI regression gate", () => {
  it("a bad --max-regression, or --baseline pinned without a plan name, exits 2 naming the flag before any run", async () => {
    const badUnit = await gatedRun(fastUrl, "pinned", "p99=10");
    expect(badUnit.exitCode, explain(badUnit)).toBe(ExitCode.usage);
    expect(badUnit.stderr).toMatch(/--max-regression: p99 changes in percent of the baseline: give e.g. p99=10%/);
    const unknown = await gatedRun(fastUrl, "pinned", "p95=10%");
    expect(unknown.exitCode).toBe(ExitCode.usage);
    expect(unknown.stderr).toMatch(/--max-regression: "p95" is not a metric/);
    const noName = await throngRun(plan(fastUrl), "--baseline", "pinned", "--max-regression", "p99=10%");
    expect(noName.exitCode).toBe(ExitCode.usage);
    expect(noName.stderr).toMatch(/--baseline pinned reads the plan's pinned run: add --plan-name/);
    expect((await browser.request<{ runs: unknown[] }>("GET", "/api/runs")).runs).toHaveLength(0);
  }, 60_000);

  it("--baseline pinned on a plan without one exits 2 before any load, saying how to pin one", async () => {
    const result = await gatedRun(fastUrl, "pinned", "p99=10%");
    expect(result.exitCode, explain(result)).toBe(ExitCode.usage);
    expect(result.stderr).toMatch(
      /--baseline pinned: the plan "lobby" has no pinned baseline; pin one of its finished runs/,
    );
    expect((await browser.request<{ runs: unknown[] }>("GET", "/api/runs")).runs).toHaveLength(0);
  }, 60_000);

  it(`a run ${ADDED_DELAY_MS} ms slower than the pinned baseline exits 99, and its JSON, JUnit and verdict line name p99 and the change`, async () => {
    const first = await throngRun(plan(fastUrl), "--plan-name", "lobby");
    expect(first.exitCode, explain(first)).toBe(ExitCode.passed);
    baselineRunId = first.json!.run.id;
    planId = first.json!.run.planId;
    expect(
      PlanView.parse(await browser.request("PUT", `/api/plans/${planId}/baseline`, { runId: baselineRunId }))
        .baselineRunId,
    ).toBe(baselineRunId);

    const slow = await gatedRun(slowUrl, "pinned", "p99=10%,error-rate=0.5pp");
    expect(slow.exitCode, explain(slow)).toBe(ExitCode.sloBreached);
    // Its own SLOs held: the 99 is the baseline's.
    expect(slow.json!.run.verdict?.outcome, explain(slow)).toBe("passed");
    const baseline = slow.json!.baseline!;
    expect(baseline).toMatchObject({ baselineRunId, runId: slow.json!.run.id, outcome: "regressed" });
    expect(baseline.regressions.map((metric) => metric.metric)).toEqual(["rtt-p99-ms"]);
    const p99 = baseline.regressions[0]!;
    expect(p99).toMatchObject({ unit: "%", allowance: 10, withinNoise: false, status: "regressed" });
    expect(p99.value! - p99.baseline!).toBeGreaterThan(ADDED_DELAY_MS * 0.8);
    expect(p99.change).toBeGreaterThan(10);
    expect(baseline.metrics.find((metric) => metric.metric === "error-rate")).toMatchObject({
      allowance: 0.5,
      unit: "pp",
    });
    expect(slow.junit).toMatch(
      new RegExp(
        `<testcase [^>]*name="rtt-p99-ms against baseline ${baselineRunId}"[^>]*>\\s*<failure type="regression" message="rtt-p99-ms [\\d.]+ ms against [\\d.]+ ms: \\+[\\d.]+% \\(allowed 10%\\), REGRESSED">`,
      ),
    );
    expect(slow.junit).toMatch(new RegExp(`<testcase [^>]*name="error-rate against baseline ${baselineRunId}"[^>]*/>`));
    expect(slow.stdout).toMatch(
      new RegExp(
        `^verdict: FAILED — worse than baseline run ${baselineRunId}: rtt-p99-ms .*\\+[\\d.]+% \\(allowed 10%\\), REGRESSED$`,
        "m",
      ),
    );
  }, 120_000);

  it("a run within its allowance of the baseline exits 0: the fast target held to the slow run", async () => {
    expect(baselineRunId, "the previous test's runs").toBeDefined();
    const slowRunId = (await browser.request<{ runs: RunView[] }>("GET", `/api/runs?plan=${planId}`)).runs[0]!.id;
    expect(slowRunId).not.toBe(baselineRunId);
    const fast = await gatedRun(fastUrl, slowRunId, "p99=10%,error-rate=0.5pp");
    expect(fast.exitCode, explain(fast)).toBe(ExitCode.passed);
    expect(fast.json!.baseline).toMatchObject({ baselineRunId: slowRunId, outcome: "held", regressions: [] });
    expect(fast.json!.baseline!.metrics.find((metric) => metric.metric === "rtt-p99-ms")).toMatchObject({
      status: "better",
    });
    expect(fast.stdout).toMatch(/^verdict: PASSED/m);
  }, 120_000);
});
