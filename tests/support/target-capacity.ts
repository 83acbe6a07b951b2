import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MetricSnapshot } from "@throng/protocol/snapshot";
import { giveTargetACore } from "./cpu";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Far above any capacity the reference target has in the accuracy tests (about 21 clients on a quiet core). */
const OVERLOAD_CLIENTS = 60;
const SECONDS = 7;

export interface MeasuredCapacity {
  /** Messages the target answered per second while saturated. */
  messagesPerSec: number;
  /** The clients it holds at one ping per intervalMs each: messagesPerSec × intervalMs / 1000. */
  clients: number;
  /** What was measured, for a failure's message. */
  note: string;
}

/**
 * The reference target's capacity now, on this machine: its CPU cost per message is known (`--cpu-us`), but
 * what a second of its core buys is not on a busy machine (CPU steal, interrupts, a neighbour on its core),
 * so the accuracy tests measure the truth they compare with. A real agent (pinned as the search's agents are)
 * drives the target at OVERLOAD_CLIENTS ping-pong clients, each with at most one message in flight, so the
 * target is never idle; the messages answered per second over the seconds with every client connected (the
 * first of them left out) are its throughput at saturation. A client pinging every intervalMs needs
 * 1000 / intervalMs of them a second, so that throughput holds messagesPerSec × intervalMs / 1000 clients:
 * past that, pings queue behind each other and round trips climb past the interval.
 */
export async function measureTargetCapacity(
  targetUrl: string,
  targetPid: number,
  intervalMs: number,
): Promise<MeasuredCapacity> {
  const dir = await mkdtemp(path.join(tmpdir(), "throng-target-capacity-"));
  try {
    const plan = {
      name: "target capacity",
      target: { protocol: "websocket", url: targetUrl },
      scenario: { kind: "ping-pong", intervalMs, messageBytes: 64 },
      load: { clients: OVERLOAD_CLIENTS, durationSec: SECONDS },
    };
    await writeFile(path.join(dir, "plan.json"), JSON.stringify(plan));
    const out = path.join(dir, "snapshots.jsonl");
    const agent = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        path.join(root, "agent/src/cli/main.ts"),
        "run",
        path.join(dir, "plan.json"),
        "--out",
        out,
        "--engines",
        "1",
        "--quiet",
      ],
      {
        cwd: root,
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let stderr = "";
    agent.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => agent.once("exit", (code) => resolve(code)));
    giveTargetACore(targetPid, [agent.pid!]);
    const code = await exited;
    const snapshots = (await readFile(out, "utf8").catch(() => ""))
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((line) => MetricSnapshot.parse(JSON.parse(line)));
    const connected = snapshots
      .filter((s) => s.counters.connectionsOpen === OVERLOAD_CLIENTS && s.clients === OVERLOAD_CLIENTS)
      .slice(1);
    const perSecond = connected.map((s) => (s.counters.messagesReceived * 1000) / s.intervalMs);
    if (perSecond.length < 3)
      throw new Error(
        `measuring the target's capacity: ${perSecond.length} saturated seconds (agent exit ${code}):\n${stderr}`,
      );
    const messagesPerSec = perSecond.reduce((sum, n) => sum + n, 0) / perSecond.length;
    const clients = (messagesPerSec * intervalMs) / 1000;
    return {
      messagesPerSec,
      clients,
      note: `${clients.toFixed(1)} clients (${Math.round(messagesPerSec)} msg/s at ${OVERLOAD_CLIENTS} clients; seconds ${perSecond.map(Math.round).join(", ")})`,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
