import { describe, expect, it, vi } from "vitest";
import { PingPongScenario, PlanSpec } from "@throng/protocol/plan";
import { createSnapshotBuilder } from "../metrics/snapshot-builder";
import { decodeHistogram } from "../metrics/histogram";
import { createScriptedTransport } from "../testing/fake-transport";
import { createPingPong } from "./ping-pong";

const runId = "3b9e2c1d-7a4f-4e8b-9c6d-1f2e3a4b5c6d";
const builder = () =>
  createSnapshotBuilder({
    runId,
    health: { sample: () => ({ cpuPercent: 0, eventLoopP99Ms: 0, rssBytes: 0 }), stop() {} },
  });

/** A server that sends its own keep-alive "2" before each answer: a welcome to HELLO, a pong to PING. */
const keepAliveServer = () =>
  createScriptedTransport((text) => (text === "HELLO" ? ["2", "WELCOME"] : text === "PING" ? ["2", "PONG"] : []));

describe("respond rules: answers to the server's own messages", () => {
  it("answers each keep-alive at once, during the session and the traffic, and keeps it out of both", async () => {
    const { transport, sent } = keepAliveServer();
    const metrics = builder();
    const scenario = PingPongScenario.parse({
      kind: "ping-pong",
      intervalMs: 10,
      message: { body: "PING" },
      // In order: without the rule the "2" would answer the ping, and the session would have to skip it.
      match: { by: "order" },
      reply: { expect: { regex: "^PONG$" } },
      session: [
        { kind: "send", message: { body: "HELLO" } },
        { kind: "expect", reply: { regex: "^WELCOME$" }, failWhen: { regex: "^2$" } },
      ],
      respond: [{ when: { regex: "^2$" }, send: { body: "3 c{{client}} n{{seq}}" } }],
    });
    const runner = createPingPong(scenario, { transport, metrics: metrics.metrics });
    runner.startClient(4);
    await vi.waitFor(() => expect(sent.filter((m) => m === "PING").length).toBeGreaterThanOrEqual(5));
    await runner.close();
    const snapshot = metrics.take({ seq: 0, intervalStart: 0, intervalMs: 1_000, clients: 1 });
    const pings = sent.filter((m) => m === "PING").length;
    const answers = sent.filter((m) => m.startsWith("3 "));
    // The session's keep-alive came before its welcome and did not fail it (failWhen never saw it).
    expect(sent.slice(0, 3)).toEqual(["HELLO", "3 c4 n0", "PING"]);
    expect(answers.slice(0, 3)).toEqual(["3 c4 n0", "3 c4 n1", "3 c4 n2"]);
    const { counters } = snapshot;
    expect(counters.errors).toBe(0);
    // Each "2" and its answer still count as messages; every other message received (the welcome aside) is a pong,
    // and every pong a round trip: none was a bad-reply "2".
    const pongs = counters.messagesReceived - answers.length - 1;
    expect(decodeHistogram(snapshot.histograms.rttUs).totalCount).toBe(pongs);
    expect(pings - pongs).toBeLessThanOrEqual(1);
    expect(counters.messagesSent).toBe(1 + pings + answers.length);
  });

  it("without respond rules, the same keep-alive fails the session", async () => {
    const { transport, sent } = keepAliveServer();
    const metrics = builder();
    const runner = createPingPong(
      PingPongScenario.parse({
        kind: "ping-pong",
        intervalMs: 10,
        message: { body: "PING" },
        session: [
          { kind: "send", message: { body: "HELLO" } },
          { kind: "expect", reply: { regex: "^WELCOME$" }, failWhen: { regex: "^2$" } },
        ],
      }),
      { transport, metrics: metrics.metrics },
    );
    runner.startClient(0);
    await vi.waitFor(() =>
      expect(
        metrics.take({ seq: 0, intervalStart: 0, intervalMs: 1_000, clients: 1 }).counters.errorsByKind?.[
          "session-rejected"
        ],
      ).toBe(1),
    );
    await runner.close();
    expect(sent).toEqual(["HELLO"]);
  });

  it("the schema takes at most 8 rules, answers without {{vars.*}}, and names a bad rule's field", () => {
    const base = {
      name: "p",
      target: { protocol: "websocket", url: "ws://127.0.0.1:1/" },
      load: { clients: 1, durationSec: 1 },
    };
    const rule = { when: { regex: "^2$" }, send: { body: "3" } };
    const parsed = (respond: unknown[]) =>
      PlanSpec.safeParse({ ...base, scenario: { kind: "movement-sync", roomSize: 2, respond } });
    expect(parsed(Array(8).fill(rule)).success).toBe(true);
    expect(parsed(Array(9).fill(rule)).error?.issues[0]?.message).toBe("at most 8 respond rules");
    const withVars = parsed([{ when: { regex: "^2$" }, send: { body: "3 {{vars.sid}}" } }]).error?.issues[0];
    expect(withVars?.path).toEqual(["scenario", "respond", 0, "send", "body"]);
    expect(withVars?.message).toMatch(/may not use \{\{vars\.NAME\}\}/);
    expect(parsed([{ when: { nope: 1 }, send: { body: "3" } }]).error?.issues[0]?.path.slice(0, 4)).toEqual([
      "scenario",
      "respond",
      0,
      "when",
    ]);
    for (const kind of ["ping-pong", "echo-flood", "login-storm"]) {
      const scenario = { kind, intervalMs: 100, messageBytes: 64, respond: [rule] };
      expect(PlanSpec.safeParse({ ...base, scenario }).success, kind).toBe(true);
    }
  });
});
