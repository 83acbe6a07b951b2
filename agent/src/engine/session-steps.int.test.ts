import { afterEach, describe, expect, it } from "vitest";
import type { SessionStep } from "@throng/protocol/plan";
import { summariseRun } from "@throng/wire/run-summary";
import { storedSnapshot } from "@throng/wire/snapshot-merge";
import { runPlan, totalsByKind } from "../testing/assignment";
import { cliProcesses, tempPlanFile } from "../testing/cli-process";
import { redisSay, redisTarget } from "../testing/redis-server";
import { useRedisServer } from "../testing/redis-server.test-support";

// Each session step timed and its failures counted by cause (issue 28 §1), against Debian's redis-server: the
// agent's per-step counts are held to Redis's own count of the commands it ran (INFO commandstats).

const hex = (text: string) => Buffer.from(text).toString("hex");
const redis = useRedisServer(["--requirepass", "secret"]);
const { cli, outputOf, exitCode, killAll } = cliProcesses();
afterEach(killAll);

/** Redis's calls and rejected calls of each command so far (this reading's own AUTH, INFO and ECHO count too). */
async function commandStats(): Promise<Record<string, { calls: number; rejected: number }>> {
  // ECHO's answer comes after INFO's: the whole of INFO has arrived (its first call lists no cmdstat_info yet).
  const text = await redisSay(redis.port, "AUTH secret\r\nINFO commandstats\r\nECHO read\r\n", /\$4\r\nread\r\n$/);
  const stats: Record<string, { calls: number; rejected: number }> = {};
  for (const found of text.matchAll(/cmdstat_(\w+):calls=(\d+),[^\r]*rejected_calls=(\d+)/g))
    stats[found[1]!] = { calls: Number(found[2]), rejected: Number(found[3]) };
  return stats;
}

/** How many more calls (or rejected calls) of `command` Redis counted in `after` than in `before`. */
const more = (before: Awaited<ReturnType<typeof commandStats>>, after: typeof before, command: string) => ({
  calls: (after[command]?.calls ?? 0) - (before[command]?.calls ?? 0),
  rejected: (after[command]?.rejected ?? 0) - (before[command]?.rejected ?? 0),
});

const send = (body: string): SessionStep => ({ kind: "send", message: { body } });
const expectReply = (prefix: string, timeoutMs?: number): SessionStep => ({
  kind: "expect",
  reply: { prefixHex: hex(prefix) },
  failWhen: { regex: "^-" },
  ...(timeoutMs ? { timeoutMs } : {}),
});

/** A ping-pong plan whose clients run `session` first; they never reach their PINGs when it fails. */
const plan = (session: SessionStep[], clients: number) => ({
  target: redisTarget(redis.port),
  scenario: {
    kind: "ping-pong" as const,
    intervalMs: 1_000,
    message: { body: "ECHO traffic" },
    match: { by: "order" as const },
    session,
  },
  load: { clients, durationSec: 1, rampUpSec: 0 },
});

/** The run's per-step figures as the control plane summarises them from the stored snapshots. */
async function stepsOf(session: SessionStep[], clients: number) {
  const snapshots = await runPlan(plan(session, clients));
  const summary = summariseRun(snapshots.map((snapshot) => storedSnapshot("agent", snapshot)));
  return { snapshots, steps: summary.sessionSteps ?? {} };
}

describe("a session's steps, each timed and its failures by cause, against a real Redis", () => {
  it("AUTH, PING, then GET without its key: each step's count is what Redis ran, and the GET's reply fails its step as session-rejected", async () => {
    const clients = 8;
    const before = await commandStats();
    const { snapshots, steps } = await stepsOf(
      [send("AUTH secret"), expectReply("+OK"), send("PING"), expectReply("+PONG"), send("GET"), expectReply("$")],
      clients,
    );
    const after = await commandStats();
    // Less the second reading's own AUTH; Redis rejects a GET without its key before running it.
    expect(more(before, after, "auth").calls - 1).toBe(clients);
    expect(more(before, after, "ping").calls).toBe(clients);
    expect(more(before, after, "get").rejected).toBe(clients);

    // Steps 0, 2, 4 (sends) and 1, 3 (the +OK and +PONG awaited) ended well once per client; step 5 never did.
    for (const step of ["0", "1", "2", "3", "4"])
      expect(steps[step], `step ${step}`).toMatchObject({ count: clients, failures: {} });
    expect(steps["5"]).toMatchObject({ count: 0, p50Ms: null, failures: { "session-rejected": clients } });
    // Step 3 waits for Redis's answer to the PING: a round trip on loopback, timed in microseconds, not zero.
    expect(steps["3"]!.maxMs).toBeGreaterThan(0);
    expect(steps["3"]!.maxMs).toBeLessThan(2_000);
    // The failures by step add up to the session's own, counted as errors as before.
    expect(totalsByKind(snapshots, "errorsByKind")).toEqual({ "session-rejected": clients });
  });

  it("a step Redis never answers fails as session-timeout, and one whose connection Redis closes fails as closed", async () => {
    // BLPOP on an empty list with no timeout blocks the client: its expect step waits out its 300 ms.
    const blocked = await stepsOf(
      [send("AUTH secret"), expectReply("+OK"), send("BLPOP nothing 0"), expectReply("*", 300)],
      4,
    );
    expect(blocked.steps["3"]).toMatchObject({ count: 0, failures: { "session-timeout": 4 } });
    expect(blocked.steps["1"]).toMatchObject({ count: 4, failures: {} });

    // QUIT: Redis answers +OK and closes the connection, while the step waits for a reply that never comes.
    const quit = await stepsOf([send("AUTH secret"), expectReply("+OK"), send("QUIT"), expectReply("+NEVER")], 4);
    expect(quit.steps["3"]).toMatchObject({ count: 0, failures: { closed: 4 } });
    expect(quit.steps["2"]).toMatchObject({ count: 4, failures: {} });
  });

  it("`throng-agent run` on 2 engines prints each step's line in its summary, merged across its engines", async () => {
    const planFile = await tempPlanFile({
      name: "steps",
      ...plan(
        [send("AUTH secret"), expectReply("+OK"), send("PING"), expectReply("+PONG"), send("GET"), expectReply("$")],
        6,
      ),
    });
    const agent = cli("bundle", ["run", planFile.path, "--engines", "2", "--quiet"]);
    const printed = outputOf(agent);
    try {
      await exitCode(agent);
      const output = printed.stdout() + printed.stderr();
      expect(output).toContain("session steps:");
      expect(output).toMatch(/step {2}3 expect +p50 [\d.]+ ms {2}p99 [\d.]+ ms {2}max [\d.]+ ms {2}\(6 done\)\n/);
      expect(output).toContain('step  5 expect   none ended well; failed {"session-rejected":6}');
    } finally {
      await planFile.cleanup();
    }
  }, 60_000);
});
