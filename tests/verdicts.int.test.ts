import { promises as fs } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import type { PlanSpecInput } from "@throng/protocol/plan";
import { RunView } from "@throng/protocol/run";
import { waitUntil } from "../infra/local/wait";
// Tests may read the web's pure report wording (production code never imports an app).
import { reportSentence } from "../apps/web/lib/reports/report-summary";
import { sloText } from "../apps/web/lib/shared/slo-text";
import { verdictBadge } from "../apps/web/lib/shared/verdict";
import { ExitCode } from "../cli/src/cli-exit-codes";
import type { Browser } from "./fault/support/api-client";
import { type CliBed, spawnThrongRun, startCliBed } from "./support/cli-bed";
import { startReferenceTarget } from "./support/control-plane";
import { cleanUpAfterFile } from "./support/file-cleanups";

/**
 * Verdicts end to end (issue: runs you can trust as a CI gate): real api, workers and agent processes, the CLI
 * as a CI job runs it, and servers that misbehave. For each run the CLI's exit code, the JSON it writes, the API's
 * verdict and the report's sentence must agree, and none may claim more than the evidence: a server that stops
 * answering, one that drops every client, and an aborted run never pass; a capacity search is judged by its
 * estimate (and its minClients), which never exceeds the target's capacity. In the serial phase of `npm test`.
 */
/** The reference target burns this much CPU per message: at one ping per 100 ms it can hold at most ~21 clients. */
const CPU_US = 4_750;
const INTERVAL_MS = 100;
const MOST_CLIENTS_TARGET_CAN_HOLD = 1e6 / CPU_US / (1000 / INTERVAL_MS);

const { cleanups, tails } = cleanUpAfterFile();
let bed: CliBed;
let browser: Browser;

/** The reference target with `args`, stopped with the file's other processes. */
const startTarget = (args: string[]) => startReferenceTarget(cleanups, args);

/**
 * A WebSocket server (the `ws` library's) that answers the agent's pings for `answerMs` after its first client
 * connects, then drops every client and closes any new one at once: a server that has thrown its players out.
 */
async function startDroppingServer(answerMs: number): Promise<string> {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0, path: "/ws" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  let dropAt: number | undefined;
  server.on("connection", (socket) => {
    dropAt ??= Date.now() + answerMs;
    if (Date.now() >= dropAt) return socket.close(1011, "server is full");
    setTimeout(() => socket.close(1011, "server restarting"), dropAt - Date.now()).unref();
    socket.on("message", (data) => {
      const seq = (JSON.parse(String(data)) as { seq?: number }).seq;
      socket.send(JSON.stringify({ type: "pong", seq }));
    });
  });
  cleanups.push(
    () =>
      new Promise((resolve) => {
        for (const c of server.clients) c.terminate();
        server.close(resolve);
      }),
  );
  return `ws://127.0.0.1:${(server.address() as { port: number }).port}/ws`;
}

/** A plain WebSocket echo server (the `ws` library's): every message goes back as it came. */
async function startEchoServer(): Promise<string> {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  server.on("connection", (socket) =>
    socket.on("message", (data, isBinary) => socket.send(data, { binary: isBinary })),
  );
  cleanups.push(
    () =>
      new Promise((resolve) => {
        for (const c of server.clients) c.terminate();
        server.close(resolve);
      }),
  );
  return `ws://127.0.0.1:${(server.address() as { port: number }).port}/`;
}

interface CliResult {
  exitCode: number | null;
  stdout: string;
  json: { run: RunView; verdict: RunView["verdict"] };
  run: RunView;
}

/** `throng run plan.json --wait --json out.json`, as a CI job runs it; `during` runs once the run is running. */
async function throngRun(plan: PlanSpecInput, during?: (runId: string) => Promise<void>): Promise<CliResult> {
  const { cli, stdout: output, jsonPath } = await spawnThrongRun(bed, cleanups, plan);
  if (during) {
    await waitUntil(async () => /^run \S+ queued/m.test(output()), {
      what: "the CLI to start the run",
      timeoutMs: 30_000,
    }).catch((error: Error) => {
      throw new Error(`${error.message}\n${output()}\n${cli.tail()}`);
    });
    const runId = /^run (\S+) queued/m.exec(output())![1]!;
    await waitUntil(
      async () => RunView.parse(await browser.request("GET", `/api/runs/${runId}`)).status === "running",
      { what: "the run to start", timeoutMs: 30_000 },
    );
    await during(runId);
  }
  const exit = await cli.exited;
  const written = await fs.readFile(jsonPath, "utf8").catch(() => {
    throw new Error(
      `throng run exited ${exit.code} without writing its JSON:\n${output()}\n${cli.tail()}\n${tails.map((t) => t()).join("\n")}`,
    );
  });
  const json = JSON.parse(written) as CliResult["json"];
  const run = RunView.parse(await browser.request("GET", `/api/runs/${json.run.id}`));
  return { exitCode: exit.code, stdout: output(), json, run };
}

const EXIT_FOR_OUTCOME = {
  passed: ExitCode.passed,
  breached: ExitCode.sloBreached,
  incomplete: ExitCode.incomplete,
  aborted: ExitCode.runFailed,
  failed: ExitCode.runFailed,
} as const;

/** The CLI's exit code, its JSON, the API and the report's sentence say the same thing. */
function expectAgreement(result: CliResult): void {
  const { run } = result;
  const outcome = run.verdict?.outcome;
  expect(outcome, result.stdout).toBeDefined();
  expect(result.exitCode, result.stdout).toBe(EXIT_FOR_OUTCOME[outcome!]);
  // An aborted run's verdict is judged again once the agents' last seconds are in (after the CLI has exited); its outcome stays.
  if (outcome === "aborted") expect(result.json.verdict).toMatchObject({ outcome, passed: false });
  else expect(result.json.verdict).toEqual(run.verdict);
  expect(result.json.run.verdict).toEqual(result.json.verdict);
  const sentence = reportSentence(run);
  if (outcome === "passed") {
    expect(run.verdict!.reasons).toEqual([]);
  } else {
    expect(run.verdict!.passed).toBe(false);
    expect(run.verdict!.reasons.length, JSON.stringify(run.verdict)).toBeGreaterThan(0);
    expect(sentence).not.toMatch(/^Passed/);
    expect(result.stdout).not.toMatch(/verdict: PASSED/);
  }
}

const pingPong = (name: string, targetUrl: string, over: Partial<PlanSpecInput> = {}): PlanSpecInput => ({
  name,
  target: { protocol: "websocket", url: targetUrl },
  scenario: { kind: "ping-pong", intervalMs: INTERVAL_MS, messageBytes: 64 },
  load: { clients: 20, durationSec: 8 },
  slos: [
    { metric: "rtt-p99-ms", below: 500 },
    { metric: "error-rate", below: 0.05 },
  ],
  ...over,
});

beforeAll(async () => {
  bed = await startCliBed(cleanups, tails, "throng-verdicts-");
  ({ browser } = bed);
}, 180_000);

describe("verdicts end to end: the CLI's exit code, its JSON, the API and the report agree, and never claim more than the evidence", () => {
  it("a run against a healthy server passes, and says the load ran as planned", async () => {
    const url = await startTarget([]);
    const result = await throngRun(pingPong("healthy", url));
    expectAgreement(result);
    expect(result.run.verdict, result.stdout).toMatchObject({ outcome: "passed", passed: true });
    expect(result.run.verdict!.load!.scheduledSends).toBeGreaterThan(0);
    expect(reportSentence(result.run)).toMatch(/^Passed all 2 SLOs/);
  }, 90_000);

  it("a server that stops answering mid-run does not pass: its seconds without round trips are no data, not a pass", async () => {
    const url = await startTarget([]);
    const result = await throngRun(pingPong("stops answering", url), async () => {
      // The reference target holds every reply for the rest of the run from the moment it gets this message.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const socket = new WebSocket(url);
      await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
      socket.send(JSON.stringify({ type: "stall", ms: 60_000 }));
      socket.close();
    });
    expectAgreement(result);
    expect(["incomplete", "breached"]).toContain(result.run.verdict!.outcome);
    expect(result.run.verdict!.slos.find((s) => s.metric === "rtt-p99-ms")?.status).not.toBe("met");
  }, 90_000);

  it("a server that drops every client does not pass, whatever the seconds before the drop measured", async () => {
    const url = await startDroppingServer(2_000);
    const result = await throngRun(pingPong("drops every client", url));
    expectAgreement(result);
    expect(["incomplete", "breached"]).toContain(result.run.verdict!.outcome);
    expect(result.run.verdict!.load!.minConnectedShare ?? 1).toBeLessThan(0.9);
  }, 90_000);

  it("a ping-pong against a plain WebSocket echo server measures no round trip and does not pass in any channel, even without SLOs: the reason says none matched and to check match (issue 27)", async () => {
    const url = await startEchoServer();
    const result = await throngRun(pingPong("echo server", url, { slos: [], load: { clients: 4, durationSec: 6 } }));
    expectAgreement(result);
    const { verdict } = result.run;
    expect(verdict).toMatchObject({ outcome: "incomplete", passed: false });
    expect(verdict!.reasons.join("\n")).toMatch(
      /the ping-pong scenario measured no round trips: \d+ messages? sent, \d+ messages? received; received \d+ messages?, none matched the ping's seq by the default match .*: check `match`/,
    );
    expect(verdict!.load!.sentSends).toBeLessThan(verdict!.load!.scheduledSends);
    // The CLI prints the reasons; the web shows them as the badge's reasons (report and run page).
    expect(result.stdout).toMatch(/none matched the ping's seq/);
    expect(verdictBadge(verdict)!.reasons.join("\n")).toMatch(/check `match`/);
    expect(reportSentence(result.run)).not.toMatch(/^Passed/);
  }, 90_000);

  it("an aborted run is aborted, never passed, in every channel", async () => {
    const url = await startTarget([]);
    const result = await throngRun(
      pingPong("aborted", url, { load: { clients: 5, durationSec: 30 } }),
      async (runId) => {
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        await browser.request("POST", `/api/runs/${runId}/abort`);
      },
    );
    expect(result.run.status).toBe("aborted");
    expectAgreement(result);
    expect(result.run.verdict).toMatchObject({ outcome: "aborted", passed: false });
    expect(reportSentence(result.run)).toMatch(/^Aborted/);
  }, 90_000);

  it(`a capacity search is judged by its estimate, which never exceeds what the target can hold (${MOST_CLIENTS_TARGET_CAN_HOLD.toFixed(1)} clients at most), and fails its minClients gate`, async () => {
    const url = await startTarget(["--cpu-us", String(CPU_US)]);
    const result = await throngRun({
      name: "search",
      target: { protocol: "websocket", url },
      scenario: { kind: "ping-pong", intervalMs: INTERVAL_MS, messageBytes: 64 },
      load: {
        clients: 30,
        durationSec: 90,
        shape: {
          kind: "step-up",
          mode: "auto",
          startClients: 10,
          stepDurationSec: 3,
          coarseSteps: 5,
          fineSteps: 5,
          minClients: 30,
        },
      },
      slos: [{ metric: "rtt-p99-ms", below: 100 }],
    });
    expectAgreement(result);
    const { capacity, verdict } = result.run;
    expect(capacity, `${result.stdout}\n${tails.map((t) => t()).join("\n")}`).toBeTruthy();
    // The report says the same sentence, with metric names for the metric ids the API writes ("round trip p99").
    expect(reportSentence(result.run)).toBe(sloText(capacity!.sentence));
    if (capacity!.valid && capacity!.clients !== null) {
      // The whole-run SLO breaks (that is what a search does); the verdict is the estimate against minClients.
      expect(verdict).toMatchObject({ outcome: "breached", passed: false });
      expect(verdict!.reasons.join("\n")).toMatch(/below the plan's minClients \(30\)/);
      expect(capacity!.clients).toBeLessThanOrEqual(MOST_CLIENTS_TARGET_CAN_HOLD * 1.15);
    } else {
      // A search on a busy machine may not find a valid estimate; then it must not claim one. Incomplete when the
      // evidence is short; breached when even its first level broke with the load delivered (on a host at load
      // average 25 the target's 4.75 ms per message ran slow enough to break at 10 clients: "no level held").
      const evidence = JSON.stringify({ capacity, verdict });
      expect(verdict!.passed, evidence).toBe(false);
      if (verdict!.outcome !== "incomplete") {
        expect(verdict!.outcome, evidence).toBe("breached");
        expect(capacity!.lastHeldClients, evidence).toBeNull();
        expect(verdict!.reasons.join("\n"), evidence).toMatch(/no level held/);
      }
      expect(capacity!.sentence).not.toMatch(/^Holds/);
    }
  }, 180_000);
});
