import type { ChildProcess } from "node:child_process";
import { connect } from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import type { PlanSpecInput } from "@throng/protocol/plan";
import { runTag } from "@throng/protocol/run-tag";
import { RunView } from "@throng/protocol/run";
import { redisSay as redisConversation, startRedisServer } from "@throng/agent/testing/redis-server";
import { signUp, waitForAgents, waitForStatus, type Browser } from "./fault/support/api-client";
import { startControlPlane, startEnrolledAgent } from "./support/control-plane";
import { cleanUpAfterFile, tempDirFor } from "./support/file-cleanups";

/**
 * One client, one number (issue 25 §1): {{client}} is the run-wide client number however a run is split. A real
 * redis-server keeps what three agents of two engines each told it, under the real api and workers: the names the
 * clients gave themselves (CLIENT LIST), and every room broadcast it relayed (a pub/sub subscriber of this test's own).
 */
const AGENTS = 3;
const ENGINES = 2;
const { cleanups, tails } = cleanUpAfterFile();
let browser: Browser;
let redis: ChildProcess | undefined;
let redisPort = 0;

const failure = () => tails.map((t) => t()).join("\n");
const hex = (text: string) => Buffer.from(text).toString("hex");

beforeAll(async () => {
  ({ port: redisPort, process: redis } = await startRedisServer());
  cleanups.push(async () => redis?.kill());
  const plane = await startControlPlane(cleanups, tails);
  browser = await signUp(plane.apiUrl);
  for (let i = 0; i < AGENTS; i += 1) {
    const dir = await tempDirFor(cleanups, "throng-identity-");
    await startEnrolledAgent(plane, browser, dir, cleanups, tails, ["--engines", String(ENGINES)]);
  }
  await waitForAgents(browser, AGENTS);
}, 240_000);

const redisSay = (commands: string, done: RegExp) => redisConversation(redisPort, commands, done);

/** Starts the plan's run, waits for it to be running, calls `whileRunning`, then waits for its end. */
async function runPlan<T>(
  plan: PlanSpecInput,
  whileRunning: (runId: string) => Promise<T>,
): Promise<{ run: RunView; during: T }> {
  const saved = await browser.request<{ id: string }>("POST", "/api/plans", plan);
  const started = RunView.parse(await browser.request("POST", `/api/plans/${saved.id}/runs`));
  await waitForStatus(browser, started.id, ["running"], 60_000);
  const during = await whileRunning(started.id);
  const { run } = await waitForStatus(browser, started.id, ["finished", "failed", "aborted"], 90_000);
  return { run, during };
}

const redisTarget = () => ({
  protocol: "tcp" as const,
  host: "127.0.0.1",
  port: redisPort,
  framing: { kind: "delimiter" as const, delimiter: "\r\n" },
});
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe("{{client}} is one number per client across agents and engines", () => {
  it(`a login storm of 30 clients on ${AGENTS} agents × ${ENGINES} engines names itself bot0 … bot29 in Redis's CLIENT LIST, none twice, and {{run}} is the run's tag`, async () => {
    const clients = 30;
    const plan: PlanSpecInput = {
      name: "identity: names",
      target: redisTarget(),
      scenario: {
        kind: "login-storm",
        hold: true,
        timeoutMs: 5_000,
        session: [
          { kind: "send", message: { body: "CLIENT SETNAME bot{{client}}" } },
          { kind: "expect", reply: { prefixHex: hex("+OK") }, failWhen: { regex: "^-" } },
          { kind: "send", message: { body: "SET owner:{{client}} {{run}}" } },
          { kind: "expect", reply: { prefixHex: hex("+OK") }, failWhen: { regex: "^-" } },
        ],
      },
      // Long enough for an engine that forks late on a busy machine to get its clients in (they hold until the end).
      load: { clients, durationSec: 20, rampUpSec: 0 },
      agents: { labels: {}, onLost: "continue" },
    };
    const { run, during } = await runPlan(plan, async () => {
      // Every client logged in when Redis lists them all under a bot name (they hold their connections).
      let names: string[] = [];
      for (let tries = 0; tries < 150 && names.length < clients; tries += 1) {
        const list = await redisSay("CLIENT LIST\r\n", /\r\n$/);
        names = [...list.matchAll(/\bname=(bot\d+)\b/g)].map((found) => found[1]!);
        if (names.length < clients) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      return names;
    });
    expect(run.status, failure()).toBe("finished");
    expect(run.summary?.agents, "the run was split over every agent").toBe(AGENTS);
    expect(during.length, `CLIENT LIST: ${during.join(" ")}\n${failure()}`).toBe(clients);
    expect([...during].sort((a, b) => Number(a.slice(3)) - Number(b.slice(3)))).toEqual(
      range(clients).map((i) => `bot${i}`),
    );
    const owners = await redisSay(
      `MGET ${range(clients)
        .map((i) => `owner:${i}`)
        .join(" ")}\r\n`,
      new RegExp(`(\\$\\d+\\r\\n[0-9a-f]+\\r\\n){${clients}}$`),
    );
    expect(new Set([...owners.matchAll(/\r\n([0-9a-f]{8})\r\n/g)].map((found) => found[1]))).toEqual(
      new Set([runTag(run.id)]),
    );
  }, 180_000);

  it("movement-sync over Redis pub/sub: every broadcast's sender is a client of the room it was sent to, and the senders are 0 … N−1", async () => {
    const roomSize = 4;
    const clients = 24;
    // A subscriber of this test's own sees every update Redis relays, with its channel (room:{{room}}).
    const relayed: { room: number; sender: number }[] = [];
    const subscriber = connect(redisPort, "127.0.0.1", () => subscriber.write("PSUBSCRIBE room:*\r\n"));
    let text = "";
    subscriber.on("data", (data) => {
      text += data.toString();
      for (
        let found = /room:(\d+)\r\n\$\d+\r\n(\d+):(\d+)\r\n/.exec(text);
        found;
        found = /room:(\d+)\r\n\$\d+\r\n(\d+):(\d+)\r\n/.exec(text)
      ) {
        relayed.push({ room: Number(found[1]), sender: Number(found[2]) });
        text = text.slice(found.index + found[0].length);
      }
    });
    cleanups.push(async () => subscriber.destroy());
    const plan: PlanSpecInput = {
      name: "identity: rooms",
      target: redisTarget(),
      scenario: {
        kind: "movement-sync",
        roomSize,
        updateHz: 5,
        // RESP3 lets a subscribed connection publish: each player subscribes to its room's channel, then publishes there.
        session: [
          { kind: "send", message: { body: "HELLO 3" } },
          { kind: "expect", reply: { regex: "^%" } },
          { kind: "send", message: { body: "SUBSCRIBE room:{{room}}" } },
          { kind: "expect", reply: { regex: "^subscribe$" } },
        ],
        update: { body: "PUBLISH room:{{room}} {{client}}:{{seq}}" },
        broadcast: { filter: { regex: "^\\d+:\\d+$" }, sender: { regex: "^(\\d+):" }, seq: { regex: ":(\\d+)$" } },
      },
      // Long enough for an engine that forks late on a busy machine to publish (every client must, for the check below).
      load: { clients, durationSec: 20, rampUpSec: 0 },
      agents: { labels: {}, onLost: "continue" },
    };
    const { run } = await runPlan(plan, async () => undefined);
    expect(run.status, failure()).toBe("finished");
    expect(relayed.length, `${JSON.stringify(run.summary)}\n${JSON.stringify(run.verdict)}`).toBeGreaterThan(
      clients * 5,
    );
    const strangers = relayed.filter(({ room, sender }) => Math.floor(sender / roomSize) !== room);
    expect(strangers.slice(0, 5), "broadcasts whose sender is no client of the room").toEqual([]);
    expect(
      [...new Set(relayed.map((r) => r.sender))].sort((a, b) => a - b),
      `${JSON.stringify(run.summary)}\n${JSON.stringify(run.verdict)}`,
    ).toEqual(range(clients));
    // The agents read the same: every broadcast came from a player of the receiver's room (none unknown), most arrived.
    const summary = run.summary!;
    expect(summary.errors, JSON.stringify(summary.errorsByKind)).toBe(0);
    expect(summary.broadcastReach ?? 0).toBeGreaterThan(0.9);
  }, 180_000);
});
