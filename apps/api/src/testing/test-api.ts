import { createLogger } from "@throng/runtime/logger";
import { createDb } from "@throng/db/client";
import { createTestDatabase, uniquePrefix } from "@throng/db/testing";
import type { OrchestratorConfig } from "@throng/core/runs/run-orchestrator";
import type { Clock } from "@throng/core/ports";
import { createRunQueue } from "@throng/runtime/jobs";
import { createRedis } from "@throng/runtime/redis";
import { AGENT_GATEWAY_PATH } from "@throng/protocol/agent";
import { buildApp } from "../app";
import { composeApi, DEFAULT_HELLO_LIMITS } from "../compose";
import type { HelloLimits } from "../gateway/hello-admission";
import type { PdfRendererConfig } from "../pdf/pdf-renderer";
import type { RateLimits } from "../services";

export const WEB_ORIGIN = "http://localhost:3000";

/** A signed-in browser: keeps the session cookie and sends the web origin, as the Next proxy does. */
export interface TestUser {
  email: string;
  /**
   * One API call with the session cookie. `json` is the answer's body, read as `T` without checking: a test that
   * reads its fields names the shape it expects (the protocol schema's type), one that only compares it leaves it
   * `unknown`.
   */
  request<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; json: T }>;
  /** A raw GET with the session cookie, for streams. */
  open(path: string, signal: AbortSignal): Promise<Response>;
  /** The session cookie header as the browser would send it. */
  cookie(): Promise<string>;
}

/** The whole API in-process on a free port, over a fresh database and a private queue prefix. */
export async function startTestApi(
  options: {
    orchestration?: OrchestratorConfig;
    heartbeatIntervalMs?: number;
    agentBundlePath?: string;
    port?: number;
    rateLimits?: Partial<RateLimits>;
    hello?: Partial<HelloLimits>;
    logLines?: string[];
    metricsToken?: string;
    pdf?: Partial<PdfRendererConfig>;
    sso?: { dnsServers?: string[]; privateIdpOrigins?: string[]; sessionHours?: number };
    scheduleClock?: Clock;
  } = {},
) {
  const database = await createTestDatabase();
  const redisUrl = process.env.REDIS_URL;
  if (!redisUrl) throw new Error("REDIS_URL is not set: run the tests with `npm test` (or vitest's global setup)");
  const prefix = uniquePrefix();
  const db = createDb(database.url, { max: 5 });
  const redis = createRedis(redisUrl, "test-api");
  const subscriberRedis = createRedis(redisUrl, "test-api-sub");
  const queueRedis = createRedis(redisUrl, "test-api-queue");
  const { queue, jobs } = createRunQueue(queueRedis, prefix);
  // The production logger, writing into `logLines` when a test wants to read what was logged.
  const logLines = options.logLines;
  const log = logLines
    ? createLogger("api", "info", { write: (line: string) => void logLines.push(line) })
    : createLogger("api", "silent");
  const deps = composeApi({
    env: {
      AUTH_SECRET: "test-secret-test-secret-test-secret-0123",
      WEB_ORIGIN,
      // With a port, the API names its real address in the commands it gives (a test can run them as shown).
      API_PUBLIC_URL: options.port ? `http://127.0.0.1:${options.port}` : "http://localhost:4000",
      HEARTBEAT_INTERVAL_MS: options.heartbeatIntervalMs ?? 1000,
      NODE_ENV: "test",
      AGENT_BUNDLE_PATH: options.agentBundlePath ?? "/nonexistent/throng-agent.mjs",
      QUEUE_PREFIX: prefix,
      // Tests read the series right after an ack; coalescing has its own test in core.
      INGEST_COALESCE_MS: 0,
      METRICS_TOKEN: options.metricsToken,
      // The address the test listens on below: /metrics answers without a token there, as on any loopback listener.
      API_HOST: "127.0.0.1",
      // Identity providers and the DNS server a test starts on loopback.
      SSO_DNS_SERVERS: options.sso?.dnsServers ?? [],
      SSO_PRIVATE_IDP_ORIGINS: options.sso?.privateIdpOrigins ?? [],
      SSO_SESSION_HOURS: options.sso?.sessionHours ?? 24,
    },
    db,
    redis,
    subscriberRedis,
    jobs,
    log,
    ...(options.orchestration ? { orchestration: options.orchestration } : {}),
    ...(options.scheduleClock ? { scheduleClock: options.scheduleClock } : {}),
    // Test files sign many users up from 127.0.0.1; the rate-limit test passes its own low limits.
    rateLimits: {
      signIn: { limit: 1000, windowSec: 60 },
      signUp: { limit: 1000, windowSec: 60 },
      enrolment: { limit: 1000, windowSec: 60 },
      runCreate: { limit: 1000, windowSec: 60 },
      export: { limit: 1000, windowSec: 60 },
      ...options.rateLimits,
    },
    hello: { ...DEFAULT_HELLO_LIMITS, ...options.hello },
    queues: [queue],
    ...(options.pdf ? { pdf: options.pdf } : {}),
  });
  const { app, routeRegistry } = await buildApp(deps, { logger: log });
  await app.listen({ host: "127.0.0.1", port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;

  async function signUp(name = "Tester"): Promise<TestUser> {
    const email = `${name.toLowerCase()}-${crypto.randomUUID().slice(0, 8)}@example.com`;
    let cookie = "";
    const request = async <T = unknown>(method: string, path: string, body?: unknown) => {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { origin: WEB_ORIGIN, cookie, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
        ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
      });
      const setCookies = response.headers.getSetCookie();
      if (setCookies.length) cookie = setCookies.map((c) => c.split(";")[0]).join("; ");
      const text = await response.text();
      return { status: response.status, json: (text ? JSON.parse(text) : null) as T };
    };
    const answer = await request("POST", "/api/auth/sign-up/email", { name, email, password: "correct-horse-battery" });
    if (answer.status !== 200) throw new Error(`sign-up failed: ${answer.status} ${JSON.stringify(answer.json)}`);
    const open = (path: string, signal: AbortSignal) =>
      fetch(`${url}${path}`, { headers: { origin: WEB_ORIGIN, cookie }, signal });
    return { email, request, open, cookie: async () => cookie };
  }

  return {
    app,
    routeRegistry,
    deps,
    url,
    db,
    queue,
    prefix,
    databaseUrl: database.url,
    redisUrl,
    gatewayUrl: `ws://127.0.0.1:${port}${AGENT_GATEWAY_PATH}`,
    signUp,
    async close() {
      await app.close();
      await queue.close();
      redis.disconnect();
      subscriberRedis.disconnect();
      queueRedis.disconnect();
      await db.destroy();
      await database.drop();
    },
  };
}
export type TestApi = Awaited<ReturnType<typeof startTestApi>>;
