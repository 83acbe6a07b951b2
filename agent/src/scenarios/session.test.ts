import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { EchoFloodScenario, SessionStep } from "@throng/protocol/plan";
import { createSnapshotBuilder } from "../metrics/snapshot-builder";
import { createScriptedTransport } from "../testing/fake-transport";
import { createEchoFlood } from "./echo-flood";
import { compileTemplate } from "@throng/wire/message-template";
import { compileSession, SessionRun, type SessionDone, type SessionFailure } from "./session";

const runId = "0d7c4f2a-5b1e-4c3d-9e8f-7a6b5c4d3e2f";
const builder = () =>
  createSnapshotBuilder({
    runId,
    health: { sample: () => ({ cpuPercent: 0, eventLoopP99Ms: 0, rssBytes: 0 }), stop() {} },
  });

/** Runs one client's session over the scripted transport and resolves with how it ended. */
function runSession(steps: SessionStep[], answer: (message: string) => (string | Buffer)[], room?: number) {
  const { transport, sent } = createScriptedTransport(answer);
  const { metrics } = builder();
  return new Promise<{ outcome: SessionDone | SessionFailure; sent: string[] }>((resolve) => {
    const connection = transport.open({
      onOpen: () => run.start(),
      onMessage: (data, at) => run.onMessage(data, at),
      onEnd() {},
    });
    const run = new SessionRun(
      compileSession(steps),
      connection,
      { client: 7, ...(room === undefined ? {} : { room }) },
      metrics,
      {
        done: (outcome) => resolve({ outcome, sent }),
        failed: (cause) => resolve({ outcome: cause, sent }),
      },
    );
  });
}

describe("session steps", () => {
  it("captures from a JSON field, a regex group and raw bytes, and uses them in later templates", async () => {
    const steps: SessionStep[] = [
      { kind: "send", message: { body: "HELLO {{client}}" } },
      {
        kind: "expect",
        reply: { json: { field: "type", equals: "welcome" } },
        capture: [
          { name: "token", from: { json: "data.token" } },
          { name: "user", from: { json: "data.user" } },
        ],
      },
      { kind: "send", message: { body: "AUTH {{vars.token}} as {{vars.user}}" } },
      { kind: "expect", reply: { regex: "^OK" }, capture: [{ name: "sid", from: { regex: "sid=(\\w+)" } }] },
      { kind: "send", message: { format: "hex", body: "ff" } },
      {
        kind: "expect",
        reply: { prefixHex: "aa" },
        capture: [
          { name: "key", from: { bytes: { offset: 1, length: 2, as: "hex" } } },
          { name: "n", from: { bytes: { offset: 3, length: 2, as: "uint" } } },
        ],
      },
      { kind: "send", message: { body: "JOIN {{vars.sid}} {{vars.key}} {{vars.n}}" } },
    ];
    const { outcome, sent } = await runSession(steps, (message) => {
      if (message.startsWith("HELLO")) return ["noise, skipped", '{"type":"welcome","data":{"token":"t0k","user":42}}'];
      if (message.startsWith("AUTH")) return ["OK sid=abc9"];
      if (message === "\xff" || message.charCodeAt(0) === 0xfffd) return [Buffer.from("aabeef0102", "hex")];
      return [];
    });
    expect(sent).toEqual(["HELLO 7", "AUTH t0k as 42", expect.any(String), "JOIN abc9 beef 258"]);
    expect(outcome).toMatchObject({ vars: { token: "t0k", user: 42, sid: "abc9", key: "beef", n: 258 } });
  });

  it("fails with session-rejected on a reply that matches failWhen, skipping replies that match neither rule", async () => {
    const { outcome } = await runSession(
      [
        { kind: "send", message: { body: "AUTH wrong\r\n" } },
        { kind: "expect", reply: { prefixHex: Buffer.from("+OK").toString("hex") }, failWhen: { regex: "^-" } },
      ],
      () => ["*ignored", "-WRONGPASS invalid username-password pair"],
    );
    expect(outcome).toBe("session-rejected");
  });

  it("fails with session-capture when the matching reply lacks the captured value", async () => {
    const { outcome } = await runSession(
      [
        { kind: "send", message: { body: "x" } },
        { kind: "expect", reply: { regex: "ok" }, capture: [{ name: "t", from: { json: "token" } }] },
      ],
      () => ["ok, but not JSON"],
    );
    expect(outcome).toBe("session-capture");
  });

  it("fills {{room}} in a join step", async () => {
    const { sent } = await runSession(
      [{ kind: "send", message: { format: "json", body: '{"join":{{room}}}' } }],
      () => [],
      12,
    );
    expect(sent).toEqual(['{"join":12}']);
  });

  describe("on fake timers", () => {
    beforeEach(() => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] }));
    afterEach(() => vi.useRealTimers());

    it("fails with session-timeout when no matching reply comes within the step's timeoutMs", async () => {
      const result = runSession(
        [
          { kind: "send", message: { body: "x" } },
          { kind: "expect", reply: { regex: "never" }, timeoutMs: 500 },
        ],
        () => ["other"],
      );
      await vi.advanceTimersByTimeAsync(499);
      let settled = false;
      void result.then(() => (settled = true));
      await vi.advanceTimersByTimeAsync(0);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect((await result).outcome).toBe("session-timeout");
    });

    it("waits `ms` before the next step, and times the session from its first step to its last", async () => {
      const result = runSession(
        [
          { kind: "send", message: { body: "a" } },
          { kind: "wait", ms: 250 },
          { kind: "send", message: { body: "b" } },
        ],
        () => [],
      );
      await vi.advanceTimersByTimeAsync(249);
      const { sent } = await Promise.race([result, Promise.resolve({ sent: ["not yet"] })]);
      expect(sent).toEqual(["not yet"]);
      await vi.advanceTimersByTimeAsync(1);
      const done = await result;
      expect(done.sent).toEqual(["a", "b"]);
      const { startedAt, endedAt } = done.outcome as SessionDone;
      expect(endedAt - startedAt).toBe(250);
    });
  });
});

describe("a scenario with a session", () => {
  it("starts its traffic only after the session, with the captured variables in its own template", async () => {
    const { transport, sent } = createScriptedTransport((message) =>
      message.startsWith("LOGIN") ? ["TOKEN 55"] : [message],
    );
    const metrics = builder();
    const scenario: EchoFloodScenario = {
      kind: "echo-flood",
      messageBytes: 1,
      message: { body: "ECHO {{vars.token}} {{seq}}" },
      session: [
        { kind: "send", message: { body: "LOGIN" } },
        { kind: "expect", reply: { regex: "^TOKEN" }, capture: [{ name: "token", from: { regex: "TOKEN (\\d+)" } }] },
      ],
    };
    const runner = createEchoFlood(scenario, { transport, metrics: metrics.metrics });
    runner.startClient(0);
    await vi.waitFor(() => expect(sent.length).toBeGreaterThan(3));
    await runner.close();
    expect(sent.slice(0, 3)).toEqual(["LOGIN", "ECHO 55 0", "ECHO 55 1"]);
  });

  it("a failed session counts its cause, closes the connection and sends none of the traffic", async () => {
    const { transport, sent, closes } = createScriptedTransport(() => ["-ERR no"]);
    const metrics = builder();
    const runner = createEchoFlood(
      {
        kind: "echo-flood",
        messageBytes: 4,
        session: [
          { kind: "send", message: { body: "AUTH x" } },
          { kind: "expect", reply: { regex: "^\\+OK" }, failWhen: { regex: "^-" } },
        ],
      },
      { transport, metrics: metrics.metrics },
    );
    runner.startClient(0);
    await vi.waitFor(() => expect(closes()).toBe(1));
    await runner.close();
    const { counters } = metrics.take({ seq: 0, intervalStart: 0, intervalMs: 1_000, clients: 1 });
    expect(sent).toEqual(["AUTH x"]);
    expect(counters).toMatchObject({
      messagesSent: 1,
      errors: 1,
      errorsByKind: { "session-rejected": 1 },
      closesByCause: { agent: 1 },
    });
  });

  it("checks echo-flood's replies: one that misses `expect` is a bad-reply error, not a round trip, and the flood goes on", async () => {
    let n = 0;
    const { transport, sent } = createScriptedTransport(() => {
      n += 1;
      return [n % 2 === 0 ? "BAD" : "GOOD"];
    });
    const metrics = builder();
    const runner = createEchoFlood(
      { kind: "echo-flood", messageBytes: 4, reply: { expect: { regex: "^GOOD" } } },
      { transport, metrics: metrics.metrics },
    );
    runner.startClient(0);
    await vi.waitFor(() => expect(sent.length).toBeGreaterThanOrEqual(10));
    await runner.close();
    const snapshot = metrics.take({ seq: 0, intervalStart: 0, intervalMs: 1_000, clients: 1 });
    const answered = snapshot.counters.messagesReceived;
    expect(snapshot.counters.errorsByKind?.["bad-reply"]).toBe(Math.floor(answered / 2));
    expect(snapshot.counters.errors).toBe(Math.floor(answered / 2));
  });
});

describe("{{len}} and its {{body}} section", () => {
  it("writes a NATS-style PUB with the byte count of its payload", () => {
    const build = compileTemplate({ body: 'PUB room.1 {{len}}\r\n{{body}}{"x":{{x}},"é":1}{{/body}}\r\n' });
    const message = build({ seq: 0, sentAtUs: 0, client: 0, x: 12.5 }).toString();
    const payload = '{"x":12.5,"é":1}';
    expect(message).toBe(`PUB room.1 ${Buffer.byteLength(payload)}\r\n${payload}\r\n`);
    expect(
      compileTemplate({ body: "PUB subject {{len}}\r\n{{body}}hello world!{{/body}}\r\n" })({
        seq: 0,
        sentAtUs: 0,
        client: 0,
      }).toString(),
    ).toBe("PUB subject 12\r\nhello world!\r\n");
  });

  it("pads inside the section to sizeBytes and counts the padding, across a change in the count's digits", () => {
    for (const size of [20, 30, 103, 104, 105, 106, 110]) {
      const message = compileTemplate({ body: "P {{len}}\n{{body}}{{seq}}{{pad}}{{/body}}", sizeBytes: size })({
        seq: 5,
        sentAtUs: 0,
        client: 0,
      }).toString();
      const [head, payload] = message.split("\n") as [string, string];
      expect(Number(head.slice(2))).toBe(Buffer.byteLength(payload));
      expect(Math.abs(message.length - size)).toBeLessThanOrEqual(1);
    }
  });

  it("is a 4-byte big-endian integer in hex bodies", () => {
    const message = compileTemplate({ format: "hex", body: "01 {{len}} {{body}}{{client}} abcd{{/body}}" })({
      seq: 0,
      sentAtUs: 0,
      client: 3,
    });
    expect(message.toString("hex")).toBe("01" + "00000006" + "00000003abcd");
  });

  it("refuses a {{len}} without a section, and a section opened twice", () => {
    expect(() => compileTemplate({ body: "PUB {{len}}\r\nx" })).toThrow(/\{\{body\}\}/);
    expect(() => compileTemplate({ body: "{{body}}a{{/body}}{{body}}b{{/body}}" })).toThrow(/at most one/);
  });

  it("refuses a variable no session captured", () => {
    expect(() => compileTemplate({ body: "AUTH {{vars.token}}" })).toThrow(/vars\.token/);
    expect(
      compileTemplate(
        { format: "hex", body: "{{vars.key}}{{vars.n}}" },
        { key: "beef", n: 258 },
      )({ seq: 0, sentAtUs: 0, client: 0 }).toString("hex"),
    ).toBe("beef00000102");
  });
});
