import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { AGENT_GATEWAY_PATH } from "@throng/protocol/agent";
import { encodeValues } from "@throng/core/metrics/histogram";
import { createRunQueue } from "@throng/runtime/jobs";
import { createRedis } from "@throng/runtime/redis";
import { connectTestAgent, helloWith } from "../apps/api/src/testing/test-agent";
import { pingPlan } from "../apps/api/src/testing/plans";
import { freePort } from "../infra/local/ports";
import { waitUntil } from "../infra/local/wait";
import { signUp } from "./fault/support/api-client";
import { startApi, startWorkers, type ServerEnv } from "./fault/support/processes";
import { parsePrometheusText, sampleValue, type PromSample } from "./support/prometheus-text";
import { freshServerEnv } from "./support/server-env";
import { cleanUpAfterFile } from "./support/file-cleanups";

// GET /metrics on a real api and a real workers process (main.ts: env parsing, the queue wiring, the workers' server).
const token = randomBytes(24).toString("base64url");
const { cleanups } = cleanUpAfterFile();
let apiUrl: string;
let workersUrl: string;
let env: ServerEnv;

beforeAll(async () => {
  env = await freshServerEnv(cleanups, { heartbeatMs: 1_000 });
  const apiPort = await freePort();
  const api = await startApi(env, apiPort, "api", { METRICS_TOKEN: token });
  cleanups.push(() => api.stop("SIGKILL", 1_000));
  const workersPort = await freePort();
  const workers = await startWorkers(env, "workers", {
    WORKERS_METRICS_PORT: String(workersPort),
    WORKERS_METRICS_HOST: "127.0.0.1",
    METRICS_TOKEN: token,
  });
  cleanups.push(() => workers.stop("SIGKILL", 1_000));
  apiUrl = `http://127.0.0.1:${apiPort}`;
  workersUrl = `http://127.0.0.1:${workersPort}`;
}, 120_000);

async function scrape(base: string): Promise<PromSample[]> {
  const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await response.text());
}

const value = async (base: string, name: string, labels: Record<string, string> = {}) =>
  sampleValue(await scrape(base), name, labels);

/** Scrapes until `name` (with `labels`) reads `wanted`; the gauges follow sockets that close asynchronously. */
async function untilValue(base: string, name: string, labels: Record<string, string>, wanted: number) {
  await waitUntil(async () => (await value(base, name, labels)) === wanted, {
    what: `${name} ${JSON.stringify(labels)} = ${wanted}`,
    timeoutMs: 10_000,
  });
}

describe("GET /metrics with METRICS_TOKEN set", () => {
  for (const [service, base] of [
    ["api", () => apiUrl],
    ["workers", () => workersUrl],
  ] as const) {
    it(`${service}: 401 with an ErrorBody without the bearer token or with a wrong one, the exposition with it`, async () => {
      for (const headers of [{}, { authorization: `Bearer ${token}x` }, { authorization: token }] as Record<
        string,
        string
      >[]) {
        const refused = await fetch(`${base()}/metrics`, { headers });
        expect(refused.status).toBe(401);
        expect(((await refused.json()) as { error: unknown }).error).toMatchObject({
          code: "unauthenticated",
          message: expect.stringMatching(/METRICS_TOKEN/),
        });
      }
      const samples = await scrape(base());
      // Node's default process metrics are there, and the queue depth of this prefix's runs queue.
      expect(samples.some((s) => s.name === "process_cpu_user_seconds_total")).toBe(true);
      expect(
        samples.some(
          (s) => s.name === "throng_queue_jobs" && s.labels.queue === "runs" && s.labels.state === "delayed",
        ),
      ).toBe(true);
    });
  }

  it("workers: GET /health reports the database and Redis; other paths are 404", async () => {
    const health = await fetch(`${workersUrl}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok", database: "ok", redis: "ok" });
    expect((await fetch(`${workersUrl}/api/runs`)).status).toBe(404);
  });
});

describe("GET /metrics without METRICS_TOKEN (issue 27 §4)", () => {
  /** A process started without METRICS_TOKEN on `host`, and what it logged. */
  async function started(service: "api" | "workers", host: string) {
    const lines: string[] = [];
    const port = await freePort();
    const child =
      service === "api"
        ? await startApi(env, port, `api-${host}`, { API_HOST: host }, [], (line) => lines.push(line))
        : await startWorkers(
            env,
            `workers-${host}`,
            { WORKERS_METRICS_PORT: String(port), WORKERS_METRICS_HOST: host },
            (line) => lines.push(line),
          );
    cleanups.push(() => child.stop("SIGKILL", 1_000));
    return { url: `http://127.0.0.1:${port}`, lines };
  }

  for (const service of ["api", "workers"] as const) {
    it(`${service} listening beyond loopback refuses every scrape (401 naming METRICS_TOKEN) and says so in one line at start`, async () => {
      const { url, lines } = await started(service, "0.0.0.0");
      const refused = await fetch(`${url}/metrics`);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: unknown }).error).toMatchObject({
        code: "unauthenticated",
        message: expect.stringMatching(/needs METRICS_TOKEN when the listener is not loopback-only/),
      });
      await waitUntil(
        async () =>
          lines.some((line) =>
            line.includes(
              "GET /metrics is refused (401): METRICS_TOKEN is unset and the listener (0.0.0.0) is not loopback-only",
            ),
          ),
        { what: "the start line", timeoutMs: 10_000 },
      );
    }, 90_000);
  }

  it("api listening on loopback only answers without a token, and says so at start", async () => {
    const { url, lines } = await started("api", "127.0.0.1");
    expect((await fetch(`${url}/metrics`)).status).toBe(200);
    await waitUntil(
      async () =>
        lines.some((line) =>
          line.includes("GET /metrics is open without a token: the listener is loopback-only (127.0.0.1)"),
        ),
      { what: "the start line", timeoutMs: 10_000 },
    );
  }, 90_000);
});

describe("what the metrics count", () => {
  it("queue depth follows the runs queue: a delayed job shows on the api's and the workers' /metrics", async () => {
    const delayed = { queue: "runs", state: "delayed" };
    const before = await value(workersUrl, "throng_queue_jobs", delayed);
    const redis = createRedis(env.redisUrl, "metrics-test");
    const { queue, jobs } = createRunQueue(redis, env.queuePrefix);
    try {
      await jobs.finishRun({ runId: crypto.randomUUID(), orgId: crypto.randomUUID() }, 3_600_000, "planned-end");
      expect(await value(workersUrl, "throng_queue_jobs", delayed)).toBe(before + 1);
      expect(await value(apiUrl, "throng_queue_jobs", delayed)).toBe(before + 1);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
      redis.disconnect();
    }
  });

  it("HTTP latency is counted by route pattern, method and status", async () => {
    const labels = { route: "/health", method: "GET", status: "200" };
    const before = await value(apiUrl, "throng_http_request_duration_seconds_count", labels);
    for (let i = 0; i < 3; i++) await (await fetch(`${apiUrl}/health`)).body?.cancel();
    expect(await value(apiUrl, "throng_http_request_duration_seconds_count", labels)).toBe(before + 3);
    // The route's pattern, never the concrete path: one series per route however many runs there are.
    const samples = await scrape(apiUrl);
    expect(
      samples.filter((s) => s.name === "throng_http_request_duration_seconds_count").map((s) => s.labels.route),
    ).not.toContain(expect.stringMatching(/[0-9a-f]{8}-/));
  });

  it("an agent connecting, its snapshot ingested and a browser on the live stream move the api's gauges and counters", async () => {
    const browser = await signUp(apiUrl);
    const agentsBefore = await value(apiUrl, "throng_agents_connected");
    const { token: enrolment } = await browser.request<{ token: string }>("POST", "/api/enrolment-tokens", {
      expiresInMinutes: 60,
    });
    const agent = await connectTestAgent(`ws://127.0.0.1:${new URL(apiUrl).port}${AGENT_GATEWAY_PATH}`);
    agent.send({ type: "hello", payload: helloWith({ kind: "enrolment", token: enrolment }) });
    await agent.next("ready");
    expect(await value(apiUrl, "throng_agents_connected")).toBe(agentsBefore + 1);

    const plan = await browser.request<{ id: string }>("POST", "/api/plans", pingPlan);
    const run = await browser.request<{ id: string }>("POST", `/api/plans/${plan.id}/runs`);
    const liveBefore = await value(apiUrl, "throng_live_subscribers");
    const live = await browser.watchLive(apiUrl, run.id);
    await untilValue(apiUrl, "throng_live_subscribers", {}, liveBefore + 1);

    // The workers process starts the run and the api hands the agent its shard.
    const assignment = await agent.next("run-assignment", 30_000);
    const stored = { result: "stored" };
    const [ingestedBefore, lagBefore] = [
      await value(apiUrl, "throng_snapshots_ingested_total", stored),
      await value(apiUrl, "throng_snapshot_lag_seconds_count"),
    ];
    agent.send({
      type: "snapshot",
      payload: {
        runId: run.id,
        seq: 0,
        intervalStart: assignment.startAt,
        intervalMs: 1000,
        clients: 10,
        counters: {
          connectionsOpen: 10,
          connectionsOpened: 10,
          connectionsFailed: 0,
          connectionsClosed: 0,
          messagesSent: 10,
          messagesReceived: 10,
          bytesSent: 640,
          bytesReceived: 640,
          errors: 0,
        },
        histograms: { rttUs: encodeValues(Array(10).fill(2_000)) },
        health: { cpuPercent: 5, eventLoopP99Ms: 1, rssBytes: 50_000_000 },
      },
    });
    expect(await agent.next("snapshot-ack")).toEqual({ runId: run.id, seq: 0 });
    expect(await value(apiUrl, "throng_snapshots_ingested_total", stored)).toBe(ingestedBefore + 1);
    expect(await value(apiUrl, "throng_snapshot_lag_seconds_count")).toBe(lagBefore + 1);

    live.stop();
    await untilValue(apiUrl, "throng_live_subscribers", {}, liveBefore);
    agent.ws.close();
    await untilValue(apiUrl, "throng_agents_connected", {}, agentsBefore);
  });
});
