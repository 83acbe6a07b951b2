import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentToServerMessage } from "@throng/protocol/agent";
import { offsetClock } from "../engine/clock";
import type { HealthSampler } from "../metrics/health";
import { createSnapshotBuilder } from "../metrics/snapshot-builder";
import { assignmentFor } from "../testing/assignment";
import { silentLogger } from "./logger";
import { openMeasurementBuffer } from "./measurement-buffer";
import { createShardManager, type ShardManagerOptions } from "./shards";

const server = "http://api.test:4000";
const assignment = assignmentFor({
  target: { protocol: "websocket", url: "ws://127.0.0.1:1/ws" },
  scenario: { kind: "ping-pong", intervalMs: 200, messageBytes: 16 },
  load: { clients: 1, durationSec: 30, rampUpSec: 0 },
});
const { runId } = assignment;
const health: HealthSampler = { sample: () => ({ cpuPercent: 1, eventLoopP99Ms: 1, rssBytes: 1 }), stop() {} };

let dir: string;
beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), "throng-recovery-"))));
afterEach(async () => rm(dir, { recursive: true, force: true }));

/** A shard that measures seconds 0..count-1 and then holds its load until stopped, like a real one mid-run. */
function measuring(count: number, calls: string[]): ShardManagerOptions["runShard"] {
  return async (a, options) => {
    calls.push(a.runId);
    options.onStart?.();
    const builder = createSnapshotBuilder({ runId: a.runId, health });
    for (let seq = 0; seq < count; seq++)
      options.onSnapshot(builder.take({ seq, intervalStart: a.startAt + seq * 1000, intervalMs: 1000, clients: 1 }));
    await new Promise((resolve) => options.signal?.addEventListener("abort", resolve, { once: true }));
    return { lastSeq: count - 1 };
  };
}

async function managerOn(configPath: string, runShard: ShardManagerOptions["runShard"]) {
  const disk = await openMeasurementBuffer(configPath, server, silentLogger);
  const shards = createShardManager({
    runShard,
    clock: () => offsetClock(0),
    log: silentLogger,
    disk: disk.buffer,
    recovered: disk.recovered,
  });
  return { disk, shards };
}

/** Attaches a control link to `manager`'s shards that takes every message; what the shards sent on it. */
function sentTo(manager: { shards: { attach(send: (message: AgentToServerMessage) => boolean): void } }) {
  const sent: AgentToServerMessage[] = [];
  manager.shards.attach((message) => {
    sent.push(message);
    return true;
  });
  return sent;
}

describe("an agent restarted after SIGKILL mid-run (PROTOCOL.md §5.1)", () => {
  it("re-sends the seconds it kept on disk in seq order, then reports the shard failed, and never restarts its load", async () => {
    const configPath = join(dir, "agent.json");
    const killedCalls: string[] = [];
    const killed = await managerOn(configPath, measuring(6, killedCalls));
    sentTo(killed); // connected, as before the kill; what it sent then is not what this test checks
    killed.shards.assign(assignment); // the fake shard measures its seconds before assign returns
    killed.shards.ack(runId, 0);
    killed.shards.ack(runId, 1);
    await killed.disk.buffer.flush();
    // kill -9: nothing more runs in that process; what is on disk is all the next one gets.

    const calls: string[] = [];
    const restarted = await managerOn(configPath, measuring(3, calls));
    const sent = sentTo(restarted);
    expect(
      sent.map((m) =>
        m.type === "snapshot"
          ? `snapshot ${m.payload.seq}`
          : m.type === "shard-status"
            ? `${m.payload.state} ${m.payload.lastSeq}`
            : m.type,
      ),
    ).toEqual(["snapshot 2", "snapshot 3", "snapshot 4", "snapshot 5", "failed 5"]);
    const status = sent.at(-1)!.payload as { error: string };
    expect(status.error).toMatch(
      /process was restarted during the run \(the last second it had kept on disk: 5\).*re-sent the 4 unacknowledged second\(s\).*did not resume the load/,
    );

    // The gateway re-sends the run's assignment after hello: answered with the same status, no load started.
    restarted.shards.assign(assignment);
    expect(calls).toEqual([]);
    expect(sent.at(-1)).toEqual(sent[4]);

    // Once the server has them all, the run's log is gone: a third start has nothing to recover.
    for (const seq of [2, 3, 4, 5]) restarted.shards.ack(runId, seq);
    await restarted.disk.buffer.close();
    const third = await openMeasurementBuffer(configPath, server, silentLogger);
    expect(third.recovered).toEqual([]);
    await third.buffer.close();

    killed.shards.abandonAll("test over");
    await killed.shards.shutdown();
    await killed.disk.buffer.close();
  });

  it("recovers a watcher's server samples as server samples", async () => {
    const configPath = join(dir, "watcher.json");
    const sample = (seq: number) => ({
      runId,
      seq,
      intervalStart: assignment.startAt + seq * 1000,
      intervalMs: 1000,
      pid: 42,
      cpuPercent: 3,
      rssBytes: 1_000,
      network: { packetsInPerSec: 1, packetsOutPerSec: 1, bytesInPerSec: 10, bytesOutPerSec: 10 },
    });
    const watching: ShardManagerOptions["runShard"] = async (_a, options) => {
      for (const seq of [0, 1]) options.onServerSample?.(sample(seq));
      await new Promise((resolve) => options.signal?.addEventListener("abort", resolve, { once: true }));
      return { lastSeq: 1 };
    };
    const killed = await managerOn(configPath, watching);
    killed.shards.assign(assignment);
    await killed.disk.buffer.flush();

    const restarted = await managerOn(configPath, watching);
    const sent = sentTo(restarted);
    expect(sent.slice(0, 2)).toEqual([
      { type: "server-sample", payload: sample(0) },
      { type: "server-sample", payload: sample(1) },
    ]);
    killed.shards.abandonAll("test over");
    await killed.shards.shutdown();
    await Promise.all([killed.disk.buffer.close(), restarted.disk.buffer.close()]);
  });

  it("re-sends the final status of a shard that had ended before the kill as it was, not as failed", async () => {
    const configPath = join(dir, "agent.json");
    const first = await managerOn(configPath, measuring(3, []));
    first.shards.attach(() => true);
    first.shards.assign(assignment);
    first.shards.stop(runId, "run ended");
    await first.shards.shutdown();
    await first.disk.buffer.flush();

    const restarted = await managerOn(configPath, measuring(3, []));
    const sent = sentTo(restarted);
    expect(sent.map((m) => m.type)).toEqual(["snapshot", "snapshot", "snapshot", "shard-status"]);
    expect(sent.at(-1)!.payload).toEqual({ runId, state: "finished", lastSeq: 2 });
    await restarted.disk.buffer.close();
    await first.disk.buffer.close();
  });
});
