import { describe, expect, it } from "vitest";
import { createClockSync } from "./clock-sync";

describe("clock offset (PROTOCOL.md §2, §3)", () => {
  it("starts from ready.serverTime minus the local receive time", () => {
    const sync = createClockSync();
    expect(sync.fromReady(10_500, 1_000)).toBe(9_500);
    expect(sync.offsetMs()).toBe(9_500);
  });

  it("refines it from heartbeat echoes, trusting the shortest round trip", () => {
    const sync = createClockSync();
    sync.fromReady(10_500, 1_000); // one-way delay folded in
    // Sent at local 2000, server stamped 11_010 (true offset 9_000 + 10 ms out), back at 2020.
    expect(sync.fromHeartbeat(11_010, 2_000, 2_020)).toBe(9_000);
    // A slow, asymmetric round trip does not move the estimate.
    expect(sync.fromHeartbeat(12_400, 3_000, 3_500)).toBe(9_000);
  });

  it("ignores an echo that is negative or absurdly old", () => {
    const sync = createClockSync();
    sync.fromReady(5_000, 1_000);
    expect(sync.fromHeartbeat(9_000, 2_000, 1_000)).toBe(4_000);
    expect(sync.fromHeartbeat(9_000, 2_000, 60_000)).toBe(4_000);
  });
});
