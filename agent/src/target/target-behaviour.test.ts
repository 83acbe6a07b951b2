import { describe, expect, it } from "vitest";
import { pingFrame } from "../scenarios/ping-pong";
import { agentPing } from "./target-behaviour";

describe("the target's byte reader for the agent's pings", () => {
  it("reads exactly what JSON.parse reads from every ping the agent builds", () => {
    for (const [seq, client, bytes, rb] of [
      [0, 0, 0, undefined],
      [7, 12, 164, 71],
      [123_456, 19_499, 164, undefined],
      [1, 2, 40, 1_000],
    ] as const) {
      const frame = Buffer.from(pingFrame(seq, client, bytes, rb));
      const parsed = JSON.parse(frame.toString()) as { seq: number; rb?: number };
      expect(agentPing(frame)).toEqual({
        type: "ping",
        seq: parsed.seq,
        ...(parsed.rb !== undefined ? { rb: parsed.rb } : {}),
      });
    }
  });

  it("leaves every other shape to JSON.parse", () => {
    for (const text of [
      '{"seq":1,"type":"ping","client":1,"pad":""}',
      '{"type":"ping","seq":01,"client":1,"pad":""}',
      '{"type":"ping","seq":1,"client":1,"pad":"xx"} ',
      '{"type":"ping","seq":1,"client":1,"pad":"xy"}',
      '{"type":"ping","seq":1,"client":1,"rb":,"pad":""}',
      '{"type":"ping","seq":1}',
      '{"type":"pong","seq":1,"client":1,"pad":""}',
    ]) {
      expect(agentPing(Buffer.from(text))).toBeUndefined();
    }
  });
});
