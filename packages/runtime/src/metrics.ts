import { timingSafeEqual } from "node:crypto";
import type { Queue } from "bullmq";
import { Gauge, Registry, collectDefaultMetrics } from "prom-client";

// The api and workers define their own metrics with these; prom-client is a dependency of this package only.
export { Counter, Gauge, Histogram, type Registry } from "prom-client";

/** The job states a queue's depth is reported in: what waits, runs, is scheduled for later, or gave up. */
const QUEUE_STATES = ["waiting", "prioritized", "active", "delayed", "failed"] as const;

/**
 * One registry per process (per app in a test process: several APIs in one vitest file must not share counters),
 * with Node's default process metrics (CPU, memory, event-loop lag, handles) under their usual names.
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** `throng_queue_jobs{queue,state}`: BullMQ's counts, read from Redis when Prometheus scrapes (no polling between). */
export function registerQueueDepth(registry: Registry, queues: readonly Queue[]) {
  new Gauge({
    name: "throng_queue_jobs",
    help: "Jobs in each BullMQ queue by state, counted at scrape time",
    labelNames: ["queue", "state"],
    registers: [registry],
    async collect() {
      for (const queue of queues) {
        const counts = await queue.getJobCounts(...QUEUE_STATES);
        for (const state of QUEUE_STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
      }
    },
  });
}

/** Whether a listen address is reachable only from this machine (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(bare);
}

/**
 * Who may read GET /metrics, decided once at start: with METRICS_TOKEN, whoever sends it as a bearer token; without
 * one, anyone only when the listener is loopback-only (a scraper on the same machine), nobody otherwise, since the
 * exposition tells a stranger the process's load, queues and agents.
 */
export interface MetricsAccess {
  token?: string;
  open: boolean;
  /** The one line the process logs at start, saying which. */
  startLine: string;
}

export function metricsAccess(token: string | undefined, listenHost: string): MetricsAccess {
  if (token) return { token, open: false, startLine: "GET /metrics wants Authorization: Bearer <METRICS_TOKEN>" };
  if (isLoopbackHost(listenHost)) {
    return {
      open: true,
      startLine: `GET /metrics is open without a token: the listener is loopback-only (${listenHost}); set METRICS_TOKEN before a proxy forwards /metrics`,
    };
  }
  return {
    open: false,
    startLine: `GET /metrics is refused (401): METRICS_TOKEN is unset and the listener (${listenHost}) is not loopback-only; set METRICS_TOKEN (16+ characters) to scrape it`,
  };
}

/** Whether a scrape may read the metrics under `access`: the token compared in constant time, or an open loopback listener. */
export function metricsScrapeAllowed(
  authorization: string | undefined,
  access: Pick<MetricsAccess, "token" | "open">,
): boolean {
  if (!access.token) return access.open;
  const presented = Buffer.from(/^Bearer (.+)$/i.exec(authorization ?? "")?.[1] ?? "");
  const expected = Buffer.from(access.token);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/** What a refused scrape is told (the same ErrorBody as every other 401). */
export function metricsRefusal(access: Pick<MetricsAccess, "token">): string {
  return access.token
    ? METRICS_UNAUTHORISED_MESSAGE
    : "GET /metrics needs METRICS_TOKEN when the listener is not loopback-only: set METRICS_TOKEN (16+ characters) on this process and send Authorization: Bearer <METRICS_TOKEN>";
}

export const METRICS_UNAUTHORISED_MESSAGE = "send Authorization: Bearer <METRICS_TOKEN> to read /metrics";
