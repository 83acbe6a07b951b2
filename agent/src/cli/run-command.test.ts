import { describe, expect, it } from "vitest";
import type { PlanSpec } from "@throng/protocol/plan";
import { fdWarning, loopbackSourceAddresses } from "./run-command";

const plan = (clients: number, url = "ws://127.0.0.1:7070/ws"): PlanSpec => ({
  name: "p",
  target: { protocol: "websocket", url },
  scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 64 },
  load: { clients, durationSec: 10, rampUpSec: 0 },
});

describe("run command checks", () => {
  it("warns when one engine's connections would pass the open-file limit", () => {
    expect(fdWarning(19_500, 20_000)).toBeUndefined();
    expect(fdWarning(25_000, 20_000)).toMatch(/open-file limit is 20000/);
  });

  it("spreads a big loopback plan over 127.0.0.x source addresses (the engine's own ports), and leaves others alone", () => {
    expect(loopbackSourceAddresses(plan(60_000))).toEqual(["127.0.0.2", "127.0.0.3", "127.0.0.4"]);
    expect(loopbackSourceAddresses(plan(19_500))).toEqual(["127.0.0.2"]);
    expect(loopbackSourceAddresses(plan(10_000))).toBeUndefined();
    expect(loopbackSourceAddresses(plan(60_000, "ws://10.0.0.5:7070/ws"))).toBeUndefined();
  });
});
