import { describe, expect, it } from "vitest";
import type { RunView } from "@throng/protocol/run";
import { DEFAULT_FORM, calculate, fieldsFromRun, formatBits, playersHeld } from "./calculator-form";

describe("calculate", () => {
  it("computes the documented example: 10-player rooms at 20 msg/s with a 200,000 pps ceiling hold 1,000 players", () => {
    const outcome = calculate({ ...DEFAULT_FORM, ceilingPacketsPerSec: "200,000" });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.result.roomMessagesInPerSec).toBe(200);
    expect(outcome.result.roomMessagesOutPerSec).toBe(1800);
    expect(outcome.result.packetsInPerSec + outcome.result.packetsOutPerSec).toBe(200_000);
    expect(playersHeld(outcome.result)).toEqual({ players: 1000, by: "packets" });
  });

  it("takes the bandwidth ceiling in Mbit/s and picks the lower ceiling", () => {
    const outcome = calculate({ ...DEFAULT_FORM, ceilingPacketsPerSec: "200000", ceilingMbitPerSec: "10" });
    if (!outcome.ok) throw new Error("expected a result");
    // 200 msgs/s × (50 + 28) B × 8 = 124,800 bit/s per player → 80 players on 10 Mbit/s.
    expect(playersHeld(outcome.result)).toEqual({ players: 80, by: "bandwidth" });
  });

  it("names the field that is wrong, in the protocol's words", () => {
    const outcome = calculate({ ...DEFAULT_FORM, fanOut: "2", messageBytes: "", playersPerRoom: "x" });
    expect(outcome).toEqual({
      ok: false,
      errors: { messageBytes: "enter a number", playersPerRoom: "must be a number" },
    });
    const range = calculate({ ...DEFAULT_FORM, fanOut: "2" });
    expect(range).toEqual({ ok: false, errors: { fanOut: "between 0 and 1" } });
  });

  it("has no answer without a ceiling", () => {
    const outcome = calculate(DEFAULT_FORM);
    if (!outcome.ok) throw new Error("expected a result");
    expect(playersHeld(outcome.result)).toBeNull();
  });
});

it("words bandwidth in decimal link units", () => {
  expect(formatBits(124_800_000)).toBe("124.8 Mbit/s");
  expect(formatBits(1_500)).toBe("1.5 kbit/s");
  expect(formatBits(12)).toBe("12 bit/s");
});

describe("fieldsFromRun", () => {
  const run = (scenario: object, summary: object | null) => ({ spec: { scenario }, summary }) as unknown as RunView;
  it("fills messages per player per second from the run's totals and the size from its plan", () => {
    expect(
      fieldsFromRun(
        run({ kind: "ping-pong", intervalMs: 200, messageBytes: 64 }, { messagesPerSec: 100, peakClients: 20 }),
      ),
    ).toEqual({
      messagesPerPlayerPerSec: "5",
      messageBytes: "64",
    });
  });
  it("takes the room size from a movement-sync plan and its default update size", () => {
    expect(fieldsFromRun(run({ kind: "movement-sync", roomSize: 8 }, null))).toEqual({
      messageBytes: "64",
      playersPerRoom: "8",
    });
  });
});
