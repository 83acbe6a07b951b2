import type { ChildProcess } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { AGENT_GATEWAY_PATH } from "@throng/protocol/agent";
import { ErrorBody } from "@throng/protocol/errors";
import { TrialView } from "@throng/protocol/session-trial";
import { connectTestAgent, helloWith } from "../apps/api/src/testing/test-agent";
import { startRedisServer } from "../agent/src/testing/redis-server";
import { freePort } from "../infra/local/ports";
import { waitUntil } from "../infra/local/wait";
import { signUp, type Browser } from "./fault/support/api-client";
import { ensureAgentBuilt, startApi, WEB_ORIGIN } from "./fault/support/processes";
import { freshServerEnv } from "./support/server-env";
import { startConnectedAgent } from "./support/agent-process";
import { cleanUpAfterFile, tempDirFor } from "./support/file-cleanups";
import { redisScenario, redisTarget } from "./support/redis-plans";

/**
 * "Try it" (agent/PROTOCOL.md §13) end to end with real processes: two API instances on one database and Redis, a
 * real `throng-agent connect` on api-0, the browser's POST /api/plans/try on api-1 (so the trial and its answer cross
 * instances over Redis pub/sub), and a real redis-server as the target.
 */
const { cleanups } = cleanUpAfterFile();
const apiUrls: string[] = [];
let browser: Browser;
let redisPort = 0;
let token = "";
let dir = "";

const hex = (text: string) => Buffer.from(text).toString("hex");
const redisPlan = (host: string, expectPrefix: string) => ({
  name: "redis trial",
  target: redisTarget(redisPort, host),
  scenario: redisScenario(100, "PING", {
    session: [
      { kind: "send", message: { body: "PING" } },
      { kind: "expect", reply: { prefixHex: hex(expectPrefix) }, timeoutMs: 500 },
    ],
  }),
  load: { clients: 1, durationSec: 5 },
});

/** POST /api/plans/try on api-1, whatever the status. */
async function tryPlan(body: unknown, apiUrl = apiUrls[1]!): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${apiUrl}/api/plans/try`, {
    method: "POST",
    headers: { origin: WEB_ORIGIN, cookie: browser.cookie(), "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, json: await response.json() };
}

beforeAll(async () => {
  await ensureAgentBuilt();
  dir = await tempDirFor(cleanups, "throng-trial-");
  const env = await freshServerEnv(cleanups, { heartbeatMs: 1_000 });
  for (const name of ["api-0", "api-1"]) {
    const port = await freePort();
    const api = await startApi(env, port, name);
    cleanups.push(() => api.stop("SIGKILL", 1_000));
    apiUrls.push(`http://127.0.0.1:${port}`);
  }
  let redis: ChildProcess;
  ({ port: redisPort, process: redis } = await startRedisServer());
  cleanups.push(async () => redis.kill());
  browser = await signUp(apiUrls[1]!);
  ({ token } = await browser.request<{ token: string }>("POST", "/api/enrolment-tokens", { expiresInMinutes: 60 }));
}, 120_000);

describe("POST /api/plans/try", () => {
  it("with no agent online: 409, saying to start one and how", async () => {
    const { status, json } = await tryPlan({ spec: redisPlan("127.0.0.1", "+PONG") });
    expect(status).toBe(409);
    expect(ErrorBody.parse(json).error).toMatchObject({
      code: "no_agent_online",
      message: expect.stringMatching(/throng-agent connect/),
    });
  });

  it("a real agent on api-0 runs the trial asked of api-1 against a real Redis: PING answered by +PONG, each step's bytes shown", async () => {
    await startConnectedAgent(
      {
        name: "agent",
        server: apiUrls[0]!,
        token,
        home: dir,
        args: ["--engines", "1", "--allow-target", "127.0.0.1"],
      },
      cleanups,
      30_000,
    );
    await waitUntil(
      async () =>
        (await browser.request<{ agents: { status: string }[] }>("GET", "/api/agents")).agents.some(
          (a) => a.status === "online",
        ),
      { what: "the agent online", timeoutMs: 10_000 },
    );

    const { status, json } = await tryPlan({ spec: redisPlan("127.0.0.1", "+PONG") });
    expect(status).toBe(200);
    const trial = TrialView.parse(json);
    expect(trial.error).toBeUndefined();
    expect(trial.connect).toMatchObject({ ok: true });
    expect(trial.steps).toMatchObject([
      { index: 0, kind: "send", ok: true, sent: { text: "PING", hex: hex("PING"), bytes: 4 } },
      { index: 1, kind: "expect", ok: true, received: [{ text: "+PONG", matched: true }] },
    ]);
  });

  it("a reply that does not match: the step fails by the engine's cause, with Redis's reply shown", async () => {
    const trial = TrialView.parse((await tryPlan({ spec: redisPlan("127.0.0.1", "+OK") })).json);
    expect(trial.steps[1]).toMatchObject({
      ok: false,
      error: "session-timeout",
      received: [{ text: "+PONG", matched: false }],
    });
  });

  it("the agent's --allow-target list holds for trials: a target off it is refused on the agent, and nothing is sent", async () => {
    const trial = TrialView.parse((await tryPlan({ spec: redisPlan("localhost", "+PONG") })).json);
    expect(trial.error).toMatch(/localhost:\d+ is not on this agent's --allow-target list.*nothing was sent/);
    expect(trial.steps).toEqual([]);
  });

  it("the organisation's target allow-list holds too: 403 naming the field", async () => {
    await browser.request("PUT", "/api/org/settings", { targetAllowList: ["game.example.com"] }, apiUrls[0]);
    try {
      const { status, json } = await tryPlan({ spec: redisPlan("127.0.0.1", "+PONG") });
      expect(status).toBe(403);
      expect(ErrorBody.parse(json).error.fields?.[0]?.path).toBe("target.host");
    } finally {
      await browser.request("PUT", "/api/org/settings", { targetAllowList: [] }, apiUrls[0]);
    }
  });

  it("another organisation's agent cannot be asked: 404, and it is sent nothing", async () => {
    const { agents } = await browser.request<{ agents: { id: string }[] }>("GET", "/api/agents");
    const intruder = await signUp(apiUrls[1]!);
    await expect(
      intruder.request("POST", "/api/plans/try", { spec: redisPlan("127.0.0.1", "+PONG"), agentId: agents[0]!.id }),
    ).rejects.toThrow(/answered 404: .*No agent/);
  });

  it("a bad plan is a 400 naming the field", async () => {
    const { status, json } = await tryPlan({
      spec: { ...redisPlan("127.0.0.1", "+PONG"), load: { clients: 0, durationSec: 5 } },
    });
    expect(status).toBe(400);
    expect(ErrorBody.parse(json).error.fields?.map((f) => f.path)).toContain("spec.load.clients");
  });

  it("an agent that never answers: 504 after the wait, with a clear message", async () => {
    const silent = await connectTestAgent(`${apiUrls[0]!.replace("http", "ws")}${AGENT_GATEWAY_PATH}`);
    cleanups.push(() => silent.close());
    silent.send({
      type: "hello",
      payload: helloWith(
        { kind: "enrolment", token },
        { host: { hostname: "silent-rig", os: "linux", arch: "x64", cores: 1, memoryBytes: 2 ** 30 } },
      ),
    });
    const { agentId } = await silent.next("ready");
    const answered = tryPlan({ spec: redisPlan("127.0.0.1", "+PONG"), agentId });
    // The trial reached the agent through the other instance; it never answers.
    expect((await silent.next("session-trial", 10_000)).plan.name).toBe("redis trial");
    const { status, json } = await answered;
    expect(status).toBe(504);
    expect(ErrorBody.parse(json).error).toMatchObject({
      code: "timeout",
      message: expect.stringMatching(/silent-rig did not answer the trial within 20 s/),
    });
  }, 40_000);
});
