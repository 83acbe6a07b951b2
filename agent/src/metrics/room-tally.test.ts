import { describe, expect, it } from "vitest";
import { bucketOf, bucketTop, createRoomTally } from "./room-tally";

describe("the per-room latency buckets", () => {
  it("hold every value within 1/16 of it, the top of each bucket the next bucket's start less one", () => {
    for (let value = 1; value < 200_000; value += 37) {
      const index = bucketOf(value);
      expect(bucketTop(index)).toBeGreaterThanOrEqual(value);
      expect(bucketTop(index) - value).toBeLessThanOrEqual(value / 16);
      expect(bucketOf(bucketTop(index) + 1)).toBe(index + 1);
    }
  });
});

describe("the room tally's report", () => {
  it("orders rooms worst first by reach, then by p99, with the rooms that expected nothing last", () => {
    const tally = createRoomTally();
    for (let n = 0; n < 100; n += 1) {
      tally.expected(1, 3, 4);
      tally.expected(2, 3, 4);
      tally.expected(3, 3, 4);
      for (let k = 0; k < 3; k += 1) {
        tally.received(1, 1_000);
        tally.received(2, n >= 95 ? 90_000 : 1_000);
        if (k < 2) tally.received(3, 1_000);
      }
    }
    tally.received(4, 500); // a broadcast from a room that sent no update this agent counted
    const report = tally.report();
    expect(report.worst.map((room) => room.room)).toEqual([3, 2, 1, 4]);
    expect(report.worst[0]).toMatchObject({ members: 4, expected: 300, received: 200 });
    expect(report.rooms).toBe(4);
    expect(report.spread.reachMin).toBeCloseTo(2 / 3);
    expect(report.spread.reachMax).toBe(1);
    expect(report.worst[1]!.maxUs).toBe(90_000);
    expect(report.spread.p99MaxUs).toBeGreaterThanOrEqual(1_000);
  });

  it("shows only the worst `shown`, and its percentiles follow later broadcasts", () => {
    const tally = createRoomTally();
    for (let room = 0; room < 10; room += 1) {
      tally.expected(room, 10, 2);
      for (let k = 0; k < 10 - (room % 5); k += 1) tally.received(room, 2_000 + room);
    }
    const first = tally.report(3);
    expect(first.rooms).toBe(10);
    expect(first.worst.map((room) => room.room)).toEqual([9, 4, 8]);
    tally.expected(0, 100, 2);
    for (let k = 0; k < 10; k += 1) tally.received(0, 40_000);
    const second = tally.report(3);
    expect(second.worst[0]!.room).toBe(0);
    expect(second.worst[0]!.p99Us).toBeGreaterThanOrEqual(40_000);
    expect(second.worst[0]!.p99Us).toBeLessThanOrEqual(42_500);
  });
});
