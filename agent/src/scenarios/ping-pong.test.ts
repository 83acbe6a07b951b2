import { describe, expect, it } from "vitest";
import { phaseGridMs, pingFrame, pongSeq, pongSeqSafe } from "./ping-pong";

describe("ping frame padding", () => {
  it.each([
    [0, 0, 64],
    [7, 3, 100],
    [123_456_789, 99_999, 256],
    [5, 1, 65_536],
  ])("ping seq %i client %i is exactly %i bytes of valid JSON", (seq, client, bytes) => {
    const frame = pingFrame(seq, client, bytes);
    expect(Buffer.byteLength(frame)).toBe(bytes);
    const parsed = JSON.parse(frame) as { type: string; seq: number; client: number; pad: string };
    expect(parsed).toMatchObject({ type: "ping", seq, client });
    expect(parsed.pad).toMatch(/^x*$/);
  });

  it("sends the unpadded frame when messageBytes is below the frame's minimum size", () => {
    const frame = pingFrame(1_000, 2, 32);
    expect(frame).toBe('{"type":"ping","seq":1000,"client":2,"pad":""}');
  });

  it("reads the seq of a pong and ignores other frames", () => {
    expect(pongSeq(Buffer.from('{"type":"pong","seq":42}'))).toBe(42);
    expect(pongSeq(Buffer.from('{"type":"ping","seq":42}'))).toBeUndefined();
    expect(pongSeq(Buffer.from("null"))).toBeUndefined();
    expect(() => pongSeq(Buffer.from("not json"))).toThrow();
  });

  it("reads a pong's seq on the fast path exactly as the JSON parse does, and falls back for other layouts", () => {
    for (const frame of [
      '{"type":"pong","seq":0}',
      '{"type":"pong","seq":98765,"pad":"xx"}',
      '{"seq":5,"type":"pong"}',
      '{"type":"pong","seq":"x"}',
      "garbage",
    ]) {
      let expected: number | undefined;
      try {
        expected = pongSeq(Buffer.from(frame));
      } catch {
        expected = undefined;
      }
      expect(pongSeqSafe(Buffer.from(frame))).toBe(expected);
    }
  });
});

describe("the grid of first pings", () => {
  it.each([
    [1_000, 1_000, 5],
    [1_000, 19_500, 5],
    [1_000, 1, 5],
    [1_000, 25_000, 4],
    [1_000, 60_000, 1],
    [250, 19_500, 1],
    [150, 1_000, 5],
    [333, 100, 3],
    [7, 1, 1],
  ])("interval %i ms with %i clients: %i ms, which divides the interval", (intervalMs, clients, grid) => {
    expect(phaseGridMs(intervalMs, clients)).toBe(grid);
    expect(intervalMs % grid).toBe(0);
  });
});
