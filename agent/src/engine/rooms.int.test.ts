import { describe, expect, it } from "vitest";
import { roomReach } from "@throng/protocol/rooms";
import { useReferenceTarget } from "../testing/reference-target.test-support";
import { runPlan, total } from "../testing/assignment";

const startTestTarget = useReferenceTarget();

// PROTOCOL.md §5.3: each movement-sync snapshot carries the shard's worst rooms since the start, worst first.
describe("movement-sync per room against the reference target", () => {
  it("puts the room whose broadcasts the target drops first, with its reach, and the spread over every room", async () => {
    // Room 2 loses every 4th delivery: its reach is 75 %, the other rooms' 100 %.
    const target = await startTestTarget({ port: 0, dropBroadcasts: { room: 2, every: 4 } });
    const snapshots = await runPlan({
      target: { protocol: "websocket", url: target.url },
      scenario: { kind: "movement-sync", roomSize: 4, updateHz: 20 },
      load: { clients: 16, durationSec: 2, rampUpSec: 0 },
    });
    const last = snapshots.at(-1)!.rooms!;
    expect(last.rooms).toBe(4);
    const [worst, ...others] = last.worst;
    expect(worst!.room).toBe(2);
    expect(worst!.members).toBe(4);
    expect(roomReach(worst!)).toBeGreaterThan(0.7);
    expect(roomReach(worst!)).toBeLessThan(0.8);
    expect(others.map((room) => room.room).sort()).toEqual([0, 1, 3]);
    for (const room of others) expect(roomReach(room)).toBeGreaterThan(0.95);
    expect(worst!.p99Us).toBeGreaterThan(0);
    expect(worst!.maxUs).toBeGreaterThanOrEqual(worst!.p99Us!);
    expect(last.spread.reachMin).toBe(roomReach(worst!));
    // Cumulative: the last snapshot's rooms hold every broadcast of the run.
    const received = last.worst.reduce((sum, room) => sum + room.received, 0);
    expect(received).toBe(total(snapshots, "broadcastsReceived"));
    expect(last.worst.reduce((sum, room) => sum + room.expected, 0)).toBe(total(snapshots, "broadcastsExpected"));
  });
});
