import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { MetricSnapshot } from "@throng/protocol/snapshot";
import type { SnapshotRow } from "@throng/db/repos/snapshots";
import { analyzeCapacity } from "@throng/core/capacity/capacity";
import { PlanSpec } from "@throng/protocol/plan";
import type { CapacityEstimate } from "@throng/protocol/report";
import { giveTargetACore } from "./support/cpu";
import { measureTargetCapacity } from "./support/target-capacity";

/**
 * The capacity search against a server whose capacity is measured in the same test: the reference target
 * burns CPU_US of CPU per message, so a core of its own answers at most 1e6 / CPU_US messages a second, and
 * at one ping per INTERVAL_MS per client it holds about 21 clients; but what a second of its core buys varies
 * on a busy machine (one such run found 17 against the 21.05 once assumed, and failed). So the test drives the
 * target to saturation before and after the search (tests/support/target-capacity.ts), takes the mean of the
 * two as the truth, and core's analysis of the real agent's step-up run must land within ±15% of it.
 */
/**
 * 4.75 ms a message: about 21 clients, between two levels, as in the control-plane test (see there). At a
 * capacity of exactly 20 the automatic search's settle step back at 20 ran the target at 100%, so the backlog of
 * the 25-client step never drained and p99 sat at the SLO's 100 ms: it failed in CI at 11028a0 (settle p99 101–105 ms).
 */
const CPU_US = 4_750;
const INTERVAL_MS = 100;
const TOLERANCE = 0.15;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const agentCli = ["--import", "tsx", path.join(root, "agent/src/cli/main.ts")];
const children: ChildProcess[] = [];

function start(args: string[]): ChildProcess {
  const child = spawn(process.execPath, [...agentCli, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  return child;
}

function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${seen}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const match = pattern.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
  });
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
});

/**
 * Runs a plan on the real standalone agent against a reference target, measuring the target's capacity just
 * before and just after; the estimate from the run's snapshots (as stored rows), and the measured capacity.
 */
async function runStandalone(
  load: object,
): Promise<{ estimate: CapacityEstimate; truth: number; report: string; log: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), "throng-capacity-"));
  try {
    const target = start(["target", "--port", "0", "--cpu-us", String(CPU_US)]);
    const [, url] = await waitForLine(target, /target listening on (ws:\/\/\S+)/, 30_000);
    const before = await measureTargetCapacity(url!, target.pid!, INTERVAL_MS);
    const plan = PlanSpec.parse({
      name: "capacity accuracy",
      target: { protocol: "websocket", url },
      scenario: { kind: "ping-pong", intervalMs: INTERVAL_MS, messageBytes: 64 },
      load,
      slos: [{ metric: "rtt-p99-ms", below: 100 }],
    });
    await writeFile(path.join(dir, "plan.json"), JSON.stringify(plan));
    const out = path.join(dir, "snapshots.jsonl");
    const agent = start(["run", path.join(dir, "plan.json"), "--out", out, "--engines", "1", "--quiet"]);
    const placement = giveTargetACore(target.pid!, [agent.pid!]);
    let log = "";
    agent.stdout?.on("data", (chunk: Buffer) => (log += chunk.toString()));
    await exited(agent);
    const after = await measureTargetCapacity(url!, target.pid!, INTERVAL_MS);
    target.kill("SIGTERM");
    const truth = (before.clients + after.clients) / 2;
    const snapshots = (await readFile(out, "utf8"))
      .trim()
      .split("\n")
      .map((line) => MetricSnapshot.parse(JSON.parse(line)));
    const rows: SnapshotRow[] = snapshots.map((s) => ({
      agentId: "00000000-0000-4000-8000-000000000001",
      seq: s.seq,
      second: Math.floor(s.intervalStart / 1000),
      intervalMs: s.intervalMs,
      clients: s.clients,
      counters: s.counters,
      rttHist: s.histograms.rttUs,
      health: s.health,
      step: s.step ?? null,
      histograms: Object.fromEntries(Object.entries(s.histograms).filter(([k, v]) => k !== "rttUs" && v)) as Record<
        string,
        string
      >,
    }));
    const estimate = analyzeCapacity(rows, plan.slos!, plan.load)!;
    const report = estimate.steps
      .map(
        (s) =>
          `${s.clients}${s.phase ? ` ${s.phase}` : ""}: ${s.throughputPerSec}/s p99 ${s.rttP99Ms} ms ${s.held ? "held" : "BROKE"}`,
      )
      .join("\n");
    const measured = `target capacity ${truth.toFixed(1)} clients: before ${before.note}; after ${after.note}`;
    return { estimate, truth, report: `${estimate.sentence}\n${measured}\n${placement}\n${report}\n${log}`, log };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** How far the estimate is from the capacity measured around it, as a share of that capacity. */
const error = (estimate: CapacityEstimate, truth: number) => Math.abs(estimate.clients! - truth) / truth;

/**
 * The run, once more when it missed while the agent said its host lost CPU to the hypervisor (median steal over
 * 10%): the search then judged steps on a machine slower than the one the target's capacity was measured on, which
 * the product itself warns of. One such miss in CI: 17 clients against 20.4 measured, median steal 20% (peak 60%).
 * The second run is judged as the first; a miss without heavy steal fails at once.
 */
async function runUnlessStolen(load: object): ReturnType<typeof runStandalone> {
  const first = await runStandalone(load);
  const missed = first.estimate.clients === null || error(first.estimate, first.truth) > TOLERANCE;
  if (!missed || !/measured under heavy CPU steal/.test(first.log)) return first;
  console.log(`missed under heavy CPU steal, run once more; the first run:\n${first.report}`);
  return runStandalone(load);
}

describe("capacity search accuracy (real agent, real target whose capacity the test measures)", () => {
  it(`finds the target's measured capacity within ±${TOLERANCE * 100}% with fixed steps`, async () => {
    const { estimate, truth, report } = await runUnlessStolen({
      clients: 30,
      durationSec: 33,
      shape: { kind: "step-up", startClients: 10, stepClients: 2, stepDurationSec: 3 },
    });
    expect(estimate.clients, report).not.toBeNull();
    expect(error(estimate, truth), report).toBeLessThanOrEqual(TOLERANCE);
  }, 300_000);

  it(`finds it within ±${TOLERANCE * 100}% with the automatic search: coarse steps, then finer ones below the first break`, async () => {
    // Coarse levels 10, 15, 20, 25, 30; after the first break, back at the last held level until it holds again, then five increments up to the break.
    const load = {
      clients: 30,
      durationSec: 40,
      shape: { kind: "step-up", mode: "auto", startClients: 10, stepDurationSec: 3, coarseSteps: 5, fineSteps: 5 },
    };
    const { estimate, truth, report, log } = await runUnlessStolen(load);
    expect(
      estimate.steps.some((s) => s.phase === "fine"),
      report,
    ).toBe(true);
    expect(estimate.clients, report).not.toBeNull();
    expect(error(estimate, truth), report).toBeLessThanOrEqual(TOLERANCE);
    // The agent judged the same steps the same way: its own verdict names the same estimate.
    expect(log, report).toContain(`capacity search: holds ${estimate.clients} clients`);
  }, 300_000);
});
