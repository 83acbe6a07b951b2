import { afterEach, describe, expect, it } from "vitest";
import type { PingPongScenario, SessionStep } from "@throng/protocol/plan";
import { merged, runPlan, total, totalsByKind } from "../testing/assignment";
import { cliProcesses, tempPlanFile } from "../testing/cli-process";
import { redisSay as redisConversation, redisTarget } from "../testing/redis-server";
import { useRedisServer } from "../testing/redis-server.test-support";

// A real third-party server speaking its own protocol: Debian's redis-server, driven by a plan alone (docs/protocols.md).

const hex = (text: string) => Buffer.from(text).toString("hex");
const redis = useRedisServer(["--requirepass", "secret"]);
const { cli, outputOf, killAll } = cliProcesses();
afterEach(killAll);

/** Sends `commands` on a fresh authenticated socket and resolves with everything Redis answered once `done` matches it. */
const redisSay = (commands: string, done: RegExp) => redisConversation(redis.port, `AUTH secret\r\n${commands}`, done);

/** Redis's own count of the commands it ran, read over a raw socket (its AUTH and INFO count too: 2 per reading). */
async function commandsProcessed(): Promise<number> {
  const processed = /total_commands_processed:(\d+)\r\n/;
  return Number(processed.exec(await redisSay("INFO stats\r\n", processed))![1]);
}

// The delimiter framing ends every message with "\r\n" itself, so the templates leave it out.
const auth = (password: string): SessionStep[] => [
  { kind: "send", message: { body: `AUTH ${password}` } },
  { kind: "expect", reply: { prefixHex: hex("+OK") }, failWhen: { regex: "^-" } },
];

/**
 * Ping-pong against Redis: each client logs in with AUTH `password`, then sends `command` every 100 ms, its replies
 * matched in order and, with `expectReply`, checked to start with it.
 */
function commandPlan(options: {
  command: string;
  password: string;
  expectReply?: string;
  clients: number;
  durationSec: number;
}) {
  const { command, password, expectReply, clients, durationSec } = options;
  const scenario: PingPongScenario = {
    kind: "ping-pong",
    intervalMs: 100,
    message: { body: command },
    match: { by: "order" },
    ...(expectReply ? { reply: { expect: { prefixHex: hex(expectReply) } } } : {}),
    session: auth(password),
  };
  return { target: redisTarget(redis.port), scenario, load: { clients, durationSec, rampUpSec: 0 } };
}

describe("ping-pong against a real Redis, speaking its protocol from the plan", () => {
  it("authenticates each client with a session, then PINGs: no errors, round trips, and every message the agent counted as sent is a command Redis ran", async () => {
    const before = await commandsProcessed();
    const snapshots = await runPlan(
      commandPlan({ command: "PING", password: "secret", expectReply: "+PONG", clients: 20, durationSec: 3 }),
    );
    const ran = (await commandsProcessed()) - before - 2; // less the first reading's INFO and the second's AUTH
    const sent = total(snapshots, "messagesSent");
    expect(total(snapshots, "errors") + total(snapshots, "connectionsFailed")).toBe(0);
    expect(merged(snapshots, "rttUs")!.totalCount).toBeGreaterThan(20 * 10);
    expect(sent).toBeGreaterThan(20 * 10);
    expect(Math.abs(sent - ran) / ran).toBeLessThanOrEqual(0.01);
  });

  it("with the wrong password every client fails its session as session-rejected, and sends no PING", async () => {
    const snapshots = await runPlan(commandPlan({ command: "PING", password: "wrong", clients: 5, durationSec: 1 }));
    expect(totalsByKind(snapshots, "errorsByKind")).toEqual({ "session-rejected": 5 });
    expect(total(snapshots, "messagesSent")).toBe(5); // the AUTHs only
    expect(merged(snapshots, "rttUs")!.totalCount).toBe(0);
    expect(totalsByKind(snapshots, "closesByCause")).toEqual({ agent: 5 });
  });

  it("checks replies: INCR's integer reply is not the +PONG the plan expects, so each is a bad-reply error, not a round trip", async () => {
    const snapshots = await runPlan(
      commandPlan({ command: "INCR k", password: "secret", expectReply: "+PONG", clients: 5, durationSec: 1 }),
    );
    const replies = total(snapshots, "messagesReceived") - 5; // less each client's +OK
    expect(replies).toBeGreaterThan(5 * 5);
    expect(totalsByKind(snapshots, "errorsByKind")).toEqual({ "bad-reply": replies });
    expect(merged(snapshots, "rttUs")!.totalCount).toBe(0);
  });
});

describe("a login handshake against a real Redis: a value captured from the server's reply is used in later messages", () => {
  // AUTH, then CLIENT ID (Redis answers ":<its id for this connection>"), captured as vars.id and sent back in
  // CLIENT SETNAME: Redis's own CLIENT LIST then shows whether every client used the id Redis gave it.
  const login = (password: string, timeoutMs?: number): SessionStep[] => [
    { kind: "send", message: { body: `AUTH ${password}` } },
    {
      kind: "expect",
      reply: { prefixHex: hex("+OK") },
      failWhen: { regex: "^-" },
      ...(timeoutMs ? { timeoutMs } : {}),
    },
    { kind: "send", message: { body: "CLIENT ID" } },
    { kind: "expect", reply: { regex: "^:\\d+$" }, capture: [{ name: "id", from: { regex: "^:(\\d+)$" } }] },
    { kind: "send", message: { body: "CLIENT SETNAME bot-{{client}}-{{vars.id}}" } },
    { kind: "expect", reply: { prefixHex: hex("+OK") }, failWhen: { regex: "^-" } },
  ];
  const loginPlan = (session: SessionStep[], clients: number, hold = true) => ({
    target: redisTarget(redis.port),
    scenario: { kind: "login-storm" as const, session, hold, timeoutMs: 2_000 },
    load: { clients, durationSec: 2, rampUpSec: 0 },
  });

  it("every client logs in with its own captured id: Redis lists each connection under the name that carries its id, and the login time is the session's", async () => {
    const names = new Map<string, string>(); // name → id, read from Redis while the clients are held
    const run = runPlan(loginPlan(login("secret"), 12));
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const list = await redisSay("CLIENT LIST\r\n", /\r\n$/);
    for (const line of list.split("\n")) {
      const found = /\bid=(\d+)\b.*\bname=(bot-\d+-\d+)\b/.exec(line);
      if (found) names.set(found[2]!, found[1]!);
    }
    const snapshots = await run;
    expect(total(snapshots, "loginsSucceeded")).toBe(12);
    expect(merged(snapshots, "loginUs")!.totalCount).toBe(12);
    expect(total(snapshots, "errors")).toBe(0);
    expect(names.size).toBe(12);
    for (const [name, id] of names)
      expect(name.endsWith(`-${id}`), `${name} should end with its connection id ${id}`).toBe(true);
    expect(new Set([...names.keys()].map((name) => name.split("-")[1])).size).toBe(12); // {{client}}: one name per client
  });

  it("fails by cause: a wrong password is session-rejected, a server that does not answer in time is a timeout", async () => {
    const rejected = await runPlan(loginPlan(login("wrong"), 4, false));
    expect(total(rejected, "loginsSucceeded")).toBe(0);
    expect(total(rejected, "loginsFailed")).toBe(4);
    expect(totalsByKind(rejected, "errorsByKind")).toEqual({ "login-session-rejected": 4 });

    // CLIENT PAUSE holds every client's commands on Redis's side: the agent's AUTH gets no answer within 300 ms.
    await redisSay("CLIENT PAUSE 1500 ALL\r\n", /\+OK\r\n\+OK\r\n$/);
    const paused = await runPlan(loginPlan(login("secret", 300), 4, false));
    expect(total(paused, "loginsSucceeded")).toBe(0);
    expect(total(paused, "loginsFailed")).toBe(4);
    expect(totalsByKind(paused, "errorsByKind")).toEqual({ "login-session-timeout": 4 });
  });
});

describe("{{client}} across engine processes: the standalone agent's report, as a user tried it", () => {
  // A 10-client plan on 2 engines once named itself bot0 … bot4 twice: each engine numbered its clients from 0.
  it("`throng-agent run` on 3 engines: Redis lists bot0 … bot9, each once", async () => {
    const plan = await tempPlanFile({
      name: "names",
      target: redisTarget(redis.port),
      scenario: {
        kind: "login-storm",
        hold: true,
        session: [
          ...auth("secret"),
          { kind: "send", message: { body: "CLIENT SETNAME bot{{client}}" } },
          { kind: "expect", reply: { prefixHex: hex("+OK") } },
        ],
      },
      load: { clients: 10, durationSec: 15, rampUpSec: 0 },
    });
    const agent = outputOf(cli("bundle", ["run", plan.path, "--engines", "3", "--quiet"]));
    try {
      let names: string[] = [];
      for (let tries = 0; tries < 120 && names.length < 10; tries += 1) {
        names = [...(await redisSay("CLIENT LIST\r\n", /\r\n$/)).matchAll(/\bname=(bot\d+)\b/g)].map(
          (found) => found[1]!,
        );
        if (names.length < 10) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const output = agent.stdout() + agent.stderr();
      expect(
        names.sort((a, b) => Number(a.slice(3)) - Number(b.slice(3))),
        output,
      ).toEqual(Array.from({ length: 10 }, (_, i) => `bot${i}`));
      expect(output).toMatch(/3 engine\(s\)/);
    } finally {
      killAll();
      await plan.cleanup();
    }
  }, 60_000);
});
