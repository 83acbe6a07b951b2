import { describe, expect, it } from "vitest";
import type { RunAssignment } from "@throng/protocol/agent";
import type { ServerSample } from "@throng/protocol/server-watch";
import { offsetClock } from "./clock";
import type { ProcessWatcher } from "../metrics/process-watch";
import { createWatchShard } from "./watch-shard";

function assignment(startAt: number, durationSec: number): RunAssignment {
  return {
    runId: "6f1c1a34-9a43-4f7e-9d0e-3c2a1b0c9d8e",
    shardIndex: 1,
    shardCount: 2,
    clients: 0,
    role: "watch",
    startAt,
    plan: {
      name: "p",
      target: { protocol: "websocket", url: "ws://127.0.0.1:1/ws" },
      scenario: { kind: "echo-flood", messageBytes: 8 },
      load: { clients: 1, durationSec, rampUpSec: 0 },
    },
  };
}

/** A process that lives for `lives` samples. */
function fakeProcess(lives: number) {
  return (pid: number, clock: () => number): ProcessWatcher => {
    let last = clock();
    let taken = 0;
    return {
      sample() {
        if (taken >= lives) throw new Error("ENOENT");
        const now = clock();
        const sample = {
          seq: taken++,
          intervalStart: Math.round(last),
          intervalMs: Math.max(1, Math.round(now - last)),
          pid,
          cpuPercent: 5,
          rssBytes: 1 << 20,
          network: { packetsInPerSec: 1, packetsOutPerSec: 1, bytesInPerSec: 1, bytesOutPerSec: 1 },
        };
        last = now;
        return sample;
      },
    };
  };
}

describe("a watcher's shard (PROTOCOL.md §11)", () => {
  it("sends one sample per second of the run, numbered and stamped on the startAt + k s grid, then finishes", async () => {
    const clock = offsetClock(0);
    // startAt just passed: the shard starts without a timer in between, so it is on time however busy the machine is.
    const startAt = Math.floor(clock.now());
    const samples: ServerSample[] = [];
    let started = 0;
    const result = await createWatchShard(42, fakeProcess(10))(assignment(startAt, 2), {
      clock,
      onSnapshot() {},
      onServerSample: (s) => samples.push(s),
      onStart: () => (started += 1),
    });
    expect(started).toBe(1);
    expect(result).toEqual({ lastSeq: 1 });
    expect(samples.map((s) => [s.seq, s.intervalStart - startAt, s.pid])).toEqual([
      [0, 0, 42],
      [1, 1000, 42],
    ]);
  });

  it("fails, saying so, when the watched process exits mid-run", async () => {
    const clock = offsetClock(0);
    const run = createWatchShard(42, fakeProcess(1))(assignment(Math.round(clock.now()), 3), {
      clock,
      onSnapshot() {},
    });
    await expect(run).rejects.toThrow("the watched process (pid 42) exited during the run, after second 1");
  });
});
