import { execFile, execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanSpec } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { startTarget, type RunningTarget } from "../target/target-server";
import { total } from "../testing/assignment";
import { cohortFigures, runCohortPlan } from "../testing/cohort-run";
import { netqAddon } from "./kernel-queue";

/**
 * The kernel path of a TCP cohort (issue 26 §2), with real sockets through the real kernel: nf_tables rules queue
 * the cohort's packets to the agent's netfilter queue, which holds and drops them below TCP. Needs Linux, root
 * (CAP_NET_ADMIN), the throng-netq addon (libnetfilter_queue) and ss (TCP_INFO of the agent's sockets); where one is
 * missing every test here is reported skipped, with why.
 */

const agentBin = fileURLToPath(new URL("../../dist/throng-agent.mjs", import.meta.url));
const execFileAsync = promisify(execFile);

function unavailable(): string | undefined {
  if (process.platform !== "linux") return `Linux only (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return "needs root (CAP_NET_ADMIN) for nf_tables and the netfilter queue";
  const addon = netqAddon();
  if (typeof addon === "string") return addon;
  try {
    execFileSync("ss", ["-V"], { stdio: "ignore" });
  } catch {
    return "ss (iproute2) is not installed: it reads TCP_INFO of the agent's sockets";
  }
  if (!existsSync(agentBin)) return `${agentBin} is not built (node agent/build.mjs)`;
  return undefined;
}

const why = unavailable();
if (why) console.warn(`kernel path tests skipped: ${why}`);

let target: RunningTarget;
beforeAll(async () => {
  if (!why)
    target = await startTarget({
      port: 0,
      tcp: { port: 0, framing: { kind: "length-prefix", headerBytes: 4 } },
      warn: () => {},
    });
});
afterAll(() => target?.close());

const tcpPlan = (
  network: PlanSpec["network"],
  clients = 10,
  durationSec = 5,
  intervalMs = 100,
): Omit<PlanSpec, "name"> => ({
  target: {
    protocol: "tcp",
    host: "127.0.0.1",
    port: target.tcpPort!,
    framing: { kind: "length-prefix", headerBytes: 4 },
  },
  scenario: { kind: "ping-pong", intervalMs, messageBytes: 64 },
  load: { clients, durationSec, rampUpSec: 0 },
  network,
});

/** Total retransmissions (TCP_INFO's tcpi_total_retrans, as ss shows it) of the live sockets to `port` from the cohorts' loopback range. */
async function retransmissions(port: number): Promise<Map<string, number>> {
  const { stdout } = await execFileAsync("ss", [
    "-tinH",
    "state",
    "established",
    `( dport = :${port} )`,
    "src",
    "127.192.0.0/10",
  ]);
  const bySocket = new Map<string, number>();
  let socket = "";
  for (const line of stdout.split("\n")) {
    const address = /^\s*\d+\s+\d+\s+(\S+)\s+\S+/.exec(line);
    if (address) socket = address[1]!;
    const retrans = /retrans:\d+\/(\d+)/.exec(line);
    if (retrans && socket) bySocket.set(socket, Number(retrans[1]));
  }
  return bySocket;
}

function tables(): string[] {
  const addon = netqAddon();
  return typeof addon === "string" ? [] : addon.listTables();
}

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function planFile(plan: Omit<PlanSpec, "name">): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), "throng-cohorts-"));
  chmodSync(dir, 0o755);
  const path = join(dir, "plan.json");
  writeFileSync(path, JSON.stringify({ name: "kernel path", ...plan }));
  chmodSync(path, 0o644);
  return { dir, path };
}

describe.skipIf(why !== undefined)(
  `a TCP cohort through the kernel's netfilter queue${why ? ` (skipped: ${why})` : ""}`,
  () => {
    it("a cohort 20 ms each way measures a round trip of 40 ms plus the machine's own, measured beside it through the same queue", async () => {
      const snapshots = await runCohortPlan(
        tcpPlan([
          { name: "far", share: 0.5, delayMs: 20 },
          { name: "near", share: 0.5 },
        ]),
      );
      const far = cohortFigures(snapshots, "far");
      const near = cohortFigures(snapshots, "near");
      console.log(
        `TCP via NFQUEUE: far (20 ms each way) rtt p50 ${far.cohortRtt(50)} ms p99 ${far.cohortRtt(99)} ms; near (no delay, same queue) p50 ${near.cohortRtt(50)} ms p99 ${near.cohortRtt(99)} ms; far packets ${far.count("networkPackets")}`,
      );
      expect(snapshots.every((s) => s.cohorts?.far?.applied === "kernel")).toBe(true);
      expect(far.count("networkPackets")).toBeGreaterThan(0);
      expect(far.cohortRtt(50)).toBeGreaterThanOrEqual(40);
      expect(far.cohortRtt(50) - 40).toBeLessThanOrEqual(near.cohortRtt(99) + 5);
      expect(far.count("errors") + near.count("errors")).toBe(0);
    });

    it("under 10% loss each way TCP itself retransmits (TCP_INFO of the cohort's sockets), and every ping is still answered", async () => {
      const seen = new Map<string, number>();
      const poll = setInterval(() => {
        void retransmissions(target.tcpPort!).then((now) => {
          for (const [socket, n] of now) seen.set(socket, Math.max(n, seen.get(socket) ?? 0));
        });
      }, 250);
      let snapshots: MetricSnapshot[];
      try {
        snapshots = await runCohortPlan(
          tcpPlan([{ name: "lossy", share: 1, delayMs: 20, lossPercent: 10 }], 10, 6, 50),
        );
        for (const [socket, n] of await retransmissions(target.tcpPort!))
          seen.set(socket, Math.max(n, seen.get(socket) ?? 0));
      } finally {
        clearInterval(poll);
      }
      const lossy = cohortFigures(snapshots, "lossy");
      const retransmitted = [...seen.values()].reduce((sum, n) => sum + n, 0);
      console.log(
        `TCP via NFQUEUE, 10% loss each way: ${seen.size} sockets retransmitted ${retransmitted} segments (TCP_INFO read by ss), the agent's own tcpRetransmits ${lossy.count("tcpRetransmits")}; the queue dropped ${lossy.count("networkDropped")} of ${lossy.count("networkPackets")} packets; rtt p50 ${lossy.cohortRtt(50)} ms p99 ${lossy.cohortRtt(99)} ms`,
      );
      expect(seen.size).toBeGreaterThan(0);
      expect(retransmitted).toBeGreaterThan(0);
      // The agent reads the same TCP_INFO each second, in every state (the test's ss, established sockets only).
      expect(lossy.count("tcpRetransmits")).toBeGreaterThan(0);
      expect(lossy.count("networkDropped")).toBeGreaterThan(0);
      expect(total(snapshots, "errors")).toBe(0);
      expect(lossy.count("messagesReceived") + lossy.count("inFlightAtEnd")).toBe(lossy.count("messagesSent"));
    });

    it("removes its rules at the end, the kernel removes those of an agent killed with SIGKILL, and the next start removes any left behind", async () => {
      const { path } = planFile(tcpPlan([{ name: "far", share: 0.5, delayMs: 20 }], 4, 30));
      const agent = spawn(process.execPath, [agentBin, "run", path, "--engines", "1", "--quiet"], { stdio: "ignore" });
      const table = `throng_${agent.pid}`;
      await until(() => tables().includes(table), `the agent made its table ${table}`);
      agent.kill("SIGKILL");
      await new Promise((resolve) => agent.once("exit", resolve));
      await until(() => !tables().includes(table), `the killed agent's table ${table} is gone`);

      // A table left by an agent killed on a kernel without owner tables: the next start finds it and removes it.
      const dead = spawn(process.execPath, ["-e", ""]);
      await new Promise((resolve) => dead.once("exit", resolve));
      const leftover = `throng_${dead.pid}`;
      const addon = netqAddon();
      if (typeof addon === "string") throw new Error(addon);
      addon.createTable(leftover, 29_999, 0x7468, new Uint32Array([0x7f000000 + 0x00fe0100, 0xffffff00, 1, 1]), false);
      expect(tables()).toContain(leftover);
      const short = planFile(tcpPlan([{ name: "far", share: 0.5, delayMs: 1 }], 2, 1));
      // Its verdict (a one-second run) does not matter here: only that it ran and cleaned up.
      spawnSync(process.execPath, [agentBin, "run", short.path, "--engines", "1", "--quiet"], { stdio: "ignore" });
      expect(tables().filter((name) => name === leftover || name.startsWith("throng_"))).toEqual([]);
    });

    it("an agent that may not use the kernel path refuses a TCP cohort's loss before any load, and applies a delay-only cohort above TCP, saying so", async () => {
      // A target of its own, so nothing but this agent could connect to it.
      const own = await startTarget({
        port: 0,
        tcp: { port: 0, framing: { kind: "length-prefix", headerBytes: 4 } },
        warn: () => {},
      });
      const lossyPlan = tcpPlan([{ name: "mobile", share: 0.5, delayMs: 20, lossPercent: 5 }], 4, 2);
      const lossy = planFile({
        ...lossyPlan,
        target: { ...lossyPlan.target, port: own.tcpPort! } as PlanSpec["target"],
      });
      const asNobody = (planPath: string, out?: string) =>
        new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
          const args = [
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            process.execPath,
            agentBin,
            "run",
            planPath,
            "--engines",
            "1",
            "--quiet",
            ...(out ? ["--out", out] : []),
          ];
          execFile(
            "setpriv",
            args,
            { cwd: tmpdir(), env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } },
            (error, stdout, stderr) =>
              resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
          );
        });
      const refused = await asNobody(lossy.path);
      if (refused.code !== 2) console.error(refused.stderr);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(
        /network\[0\] "mobile" asks for lossPercent on a tcp target, which only the kernel path can apply .* CAP_NET_ADMIN/,
      );
      expect(refused.stderr).toMatch(/or take lossPercent out of this cohort/);
      expect(own.stats().accepted).toBe(0);
      await own.close();

      const delayOnly = planFile(tcpPlan([{ name: "mobile", share: 0.5, delayMs: 20 }], 4, 2));
      const out = join(delayOnly.dir, "seconds.jsonl");
      chmodSync(delayOnly.dir, 0o777);
      const ran = await asNobody(delayOnly.path, out);
      expect(ran.stderr).toMatch(/network cohort mobile: its delay and bandwidth are applied ABOVE TCP/);
      expect(ran.stdout).toMatch(/cohort mobile \(ABOVE TCP: TCP saw the rig's round trip/);
      const seconds = readFileSync(out, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as MetricSnapshot);
      expect(seconds.every((s) => s.cohorts?.mobile?.applied === "above-stream")).toBe(true);
      const mobile = cohortFigures(seconds, "mobile");
      expect(mobile.cohortRtt(50)).toBeGreaterThanOrEqual(40);
    });
  },
);
