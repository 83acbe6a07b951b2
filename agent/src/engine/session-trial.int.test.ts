import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PlanSpec, type SessionStep } from "@throng/protocol/plan";
import { freeLoopbackPort, redisTarget, startRedisServer } from "../testing/redis-server";
import { useRedisServer } from "../testing/redis-server.test-support";
import { runSessionTrial } from "./session-trial";

// A session trial (PROTOCOL.md §13): one client's connect and session steps against a real redis-server, with each
// step's bytes and outcome in the engine's own words.

const hex = (text: string) => Buffer.from(text).toString("hex");
const redis = useRedisServer();
// A server that accepts and never answers, counting its connections.
let silent: Server;
let silentPort = 0;
const silentSockets: Socket[] = [];

function redisPlan(session: SessionStep[], port = redis.port): PlanSpec {
  return PlanSpec.parse({
    name: "trial",
    target: redisTarget(port),
    scenario: { kind: "ping-pong", intervalMs: 100, message: { body: "PING" }, match: { by: "order" }, session },
    load: { clients: 1, durationSec: 1 },
  });
}

beforeAll(async () => {
  silent = createServer((socket) => silentSockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  silentPort = (silent.address() as { port: number }).port;
});

afterAll(async () => {
  for (const socket of silentSockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

describe("a session trial against a real Redis", () => {
  it("writes {{secrets.NAME}} in (Redis's AUTH takes the password) and shows neither what went out nor what came back with its value (PROTOCOL.md §14)", async () => {
    const secured = await startRedisServer(["--requirepass", "hunter2-secret"]);
    try {
      const trial = await runSessionTrial(
        redisPlan(
          [
            { kind: "send", message: { body: "AUTH {{secrets.REDIS_PASSWORD}}" } },
            { kind: "expect", reply: { prefixHex: hex("+OK") }, failWhen: { regex: "^-" } },
            { kind: "send", message: { body: "ECHO {{secrets.REDIS_PASSWORD}}" } },
            { kind: "expect", reply: { regex: "^[a-z]" }, capture: [{ name: "echoed", from: { regex: "^(.*)$" } }] },
          ],
          secured.port,
        ),
        { secrets: { REDIS_PASSWORD: "hunter2-secret" } },
      );
      expect(trial.steps.map((step) => step.ok)).toEqual([true, true, true, true]);
      expect(trial.steps[0]?.sent).toMatchObject({
        bytes: "AUTH hunter2-secret".length,
        text: "AUTH {{secrets.REDIS_PASSWORD}}",
      });
      expect(trial.steps[3]?.received?.at(-1)).toMatchObject({ text: "{{secrets.REDIS_PASSWORD}}", matched: true });
      expect(trial.steps[3]?.captured).toEqual({ echoed: "{{secrets.REDIS_PASSWORD}}" });
      const shown = JSON.stringify(trial);
      expect(shown).not.toContain("hunter2");
      expect(shown).not.toContain(hex("hunter2-secret"));
    } finally {
      secured.process.kill();
    }
  });

  it("PING answered by +PONG: the connect and both steps are ok, with the bytes sent and the reply received", async () => {
    const trial = await runSessionTrial(
      redisPlan([
        { kind: "send", message: { body: "PING" } },
        { kind: "expect", reply: { prefixHex: hex("+PONG") } },
      ]),
    );
    expect(trial.error).toBeUndefined();
    expect(trial.connect).toMatchObject({ ok: true });
    expect(trial.steps).toMatchObject([
      { index: 0, kind: "send", ok: true, sent: { bytes: 4, hex: hex("PING"), text: "PING" } },
      { index: 1, kind: "expect", ok: true, received: [{ text: "+PONG", hex: hex("+PONG"), matched: true }] },
    ]);
  });

  it("captures a reply's value into {{vars.*}} and shows it, and the next step sends it", async () => {
    const trial = await runSessionTrial(
      redisPlan([
        { kind: "send", message: { body: "CLIENT ID" } },
        {
          kind: "expect",
          reply: { prefixHex: hex(":") },
          capture: [{ name: "id", from: { regex: "^:(\\d+)$", group: 1 } }],
        },
        { kind: "send", message: { body: "ECHO id-{{vars.id}}" } },
        { kind: "expect", reply: { regex: "^id-\\d+$" } },
      ]),
    );
    const id = trial.steps[1]?.captured?.id;
    expect(id).toMatch(/^\d+$/);
    expect(trial.steps[2]?.sent?.text).toBe(`ECHO id-${id}`);
    expect(trial.steps.map((step) => step.ok)).toEqual([true, true, true, true]);
  });

  it("a reply the expect step does not match is shown, unmatched, and the step fails as the engine's session-timeout", async () => {
    const trial = await runSessionTrial(
      redisPlan([
        { kind: "send", message: { body: "ECHO hello" } },
        { kind: "expect", reply: { prefixHex: hex("+PONG") }, timeoutMs: 300 },
      ]),
    );
    expect(trial.steps[1]).toMatchObject({ kind: "expect", ok: false, error: "session-timeout" });
    // RESP's bulk reply "$5\r\nhello\r\n" is two messages with "\r\n" framing.
    expect(trial.steps[1]?.received).toEqual([
      { bytes: 2, hex: hex("$5"), text: "$5", matched: false },
      { bytes: 5, hex: hex("hello"), text: "hello", matched: false },
    ]);
  });

  it("an error reply matched by failWhen fails the step as session-rejected, with Redis's error shown", async () => {
    const trial = await runSessionTrial(
      redisPlan([
        { kind: "send", message: { body: "NOSUCHCOMMAND" } },
        { kind: "expect", reply: { prefixHex: hex("+OK") }, failWhen: { regex: "^-" } },
      ]),
    );
    expect(trial.steps[1]).toMatchObject({ ok: false, error: "session-rejected" });
    expect(trial.steps[1]?.received?.[0]?.text).toMatch(/^-ERR unknown command/);
  });
});

describe("a session trial's failures and limits", () => {
  it("a server that never answers: the expect step fails as session-timeout with nothing received", async () => {
    const trial = await runSessionTrial(
      redisPlan(
        [
          { kind: "send", message: { body: "PING" } },
          { kind: "expect", reply: { prefixHex: hex("+PONG") }, timeoutMs: 200 },
        ],
        silentPort,
      ),
    );
    expect(trial.connect?.ok).toBe(true);
    expect(trial.steps[1]).toMatchObject({ kind: "expect", ok: false, error: "session-timeout" });
    expect(trial.steps[1]?.received).toBeUndefined();
  });

  it("stops at its own time limit whatever the step's timeout, and says so", async () => {
    const trial = await runSessionTrial(
      redisPlan([{ kind: "expect", reply: { prefixHex: hex("+PONG") }, timeoutMs: 60_000 }], silentPort),
      { timeLimitMs: 300 },
    );
    expect(trial.steps[0]).toMatchObject({ ok: false, error: "trial-time-limit" });
    expect(trial.error).toMatch(/time limit/);
  });

  it("a refused connect is the connect's failure by cause, and no step runs", async () => {
    const trial = await runSessionTrial(
      redisPlan([{ kind: "send", message: { body: "PING" } }], await freeLoopbackPort()),
    );
    expect(trial.connect).toMatchObject({ ok: false, error: "refused" });
    expect(trial.steps).toEqual([]);
  });

  it("holds the target to the agent's --allow-target list: refused without a connection", async () => {
    const before = silentSockets.length;
    const trial = await runSessionTrial(redisPlan([{ kind: "send", message: { body: "PING" } }], silentPort), {
      allowTargets: ["game.example.com"],
    });
    expect(trial.error).toMatch(/not on this agent's --allow-target list .*nothing was sent/);
    expect(trial.connect).toBeUndefined();
    expect(silentSockets.length).toBe(before);
  });

  it("a script scenario has no steps to try: said plainly", async () => {
    const plan = PlanSpec.parse({
      name: "script",
      target: { protocol: "tcp", host: "127.0.0.1", port: silentPort, framing: { kind: "delimiter", delimiter: "\n" } },
      scenario: { kind: "script", script: { sha256: "a".repeat(64) } },
      load: { clients: 1, durationSec: 1 },
    });
    expect((await runSessionTrial(plan)).error).toMatch(/script scenario/);
  });
});
