import { describe, expect, it } from "vitest";
import { PlanSpec } from "@throng/protocol/plan";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parsePlan, readPlanFile } from "@throng/wire/plan-reader";

describe("plan files (YAML or JSON, the shared schema)", () => {
  it("keeps a plan saved with the first schema valid", () => {
    const old = {
      name: "old",
      target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
      scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 64 },
      load: { clients: 10, durationSec: 30, rampUpSec: 5 },
    };
    expect(PlanSpec.parse(old)).toEqual(old);
  });

  it("reads every scenario, target and load shape from YAML", () => {
    const plan = parsePlan(
      `
name: all
target: { protocol: udp, host: 127.0.0.1, port: 9000 }
scenario: { kind: movement-sync, roomSize: 8, updateHz: 20 }
load:
  clients: 100
  durationSec: 60
  shape: { kind: step-up, startClients: 10, stepClients: 10, stepDurationSec: 5 }
slos: [{ metric: broadcast-p99-ms, below: 50 }]
`,
      "plan.yaml",
    );
    expect(plan.load.shape).toEqual({ kind: "step-up", startClients: 10, stepClients: 10, stepDurationSec: 5 });
    for (const scenario of [
      { kind: "echo-flood", messageBytes: 8, maxInFlight: 4 },
      { kind: "login-storm", connectsPerSec: 500, login: true },
    ]) {
      // Their SLOs are their own: broadcast latency is movement-sync's (slo-metrics.ts).
      expect(PlanSpec.safeParse({ ...plan, scenario, slos: [{ metric: "error-rate", below: 0.01 }] }).success).toBe(
        true,
      );
    }
  });

  it("names every bad field, and says what the file is when it is not YAML", () => {
    expect(() =>
      parsePlan(
        '{"name": "x", "target": {"protocol": "smtp"}, "scenario": {"kind": "ping-pong", "intervalMs": 1, "messageBytes": 64}, "load": {"clients": 0, "durationSec": 1}}',
        "p.json",
      ),
    ).toThrow(/target.protocol: [^\n]*\n[\s\S]*load.clients: must be at least 1/);
    expect(() => parsePlan("name: [unclosed", "p.yaml")).toThrow(/p.yaml is not valid YAML or JSON/);
  });

  it("refuses, before any load, a protobuf body that does not fit its message type, naming the field", () => {
    const plan = (body: string) =>
      JSON.stringify({
        name: "pb",
        target: {
          protocol: "tcp",
          host: "127.0.0.1",
          port: 7071,
          framing: { kind: "length-field", lengthFieldBytes: "varint" },
        },
        protobuf: { proto: 'syntax = "proto3"; package game; message Ping { int64 seq = 1; }' },
        scenario: {
          kind: "ping-pong",
          intervalMs: 100,
          message: { format: "protobuf", messageType: "game.Ping", body },
        },
        load: { clients: 1, durationSec: 1 },
      });
    expect(parsePlan(plan('{"seq":{{seq}}}'), "pb.json").protobuf?.proto).toMatch(/message Ping/);
    expect(() => parsePlan(plan('{"seq":{{seq}},"hp":3}'), "pb.json")).toThrow(
      /pb.json is not a valid plan:\n\s+scenario.message.body.hp/,
    );
  });

  it("every example plan in agent/examples is valid", async () => {
    const dir = fileURLToPath(new URL("../../examples/", import.meta.url));
    const files = readdirSync(dir).filter((f) => f.endsWith(".yaml"));
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const file of files)
      await expect(readPlanFile(join(dir, file)), file).resolves.toMatchObject({ name: expect.any(String) });
  });
});
