import { describe, expect, it } from "vitest";
import { calculateCapacity } from "./calculator";

describe("capacity calculator", () => {
  it("does a 20 Hz, 10-player room by hand", () => {
    const r = calculateCapacity({
      playersPerRoom: 10,
      messagesPerPlayerPerSec: 20,
      messageBytes: 50,
      overheadBytes: 28,
      players: 1000,
      ceilingPacketsPerSec: 200_000,
    });
    expect(r.roomMessagesInPerSec).toBe(200); // 10 players × 20
    expect(r.roomMessagesOutPerSec).toBe(1800); // each of 10 receives 9 × 20
    expect(r.packetsInPerSec).toBe(20_000);
    expect(r.packetsOutPerSec).toBe(180_000);
    expect(r.bitsOutPerSec).toBe(180_000 * (50 + 28) * 8);
    expect(r.playersByPackets).toBe(1000); // 200,000 ÷ (20 + 180)
    expect(r.playersByBandwidth).toBeNull();
  });

  it("packs messages into packets and limits by bandwidth", () => {
    const r = calculateCapacity({
      playersPerRoom: 2,
      messagesPerPlayerPerSec: 10,
      messageBytes: 100,
      overheadBytes: 0,
      messagesPerPacket: 5,
      players: 1,
      ceilingBitsPerSec: 16_000,
    });
    expect(r.packetsInPerSec).toBe(2);
    expect(r.playersByBandwidth).toBe(1); // 16,000 ÷ ((10 + 10) × 100 × 8)
  });

  it("rejects a fan-out outside 0..1", () => {
    expect(() =>
      calculateCapacity({ playersPerRoom: 2, messagesPerPlayerPerSec: 1, messageBytes: 1, fanOut: 2 }),
    ).toThrow(/between 0 and 1/);
  });
});
