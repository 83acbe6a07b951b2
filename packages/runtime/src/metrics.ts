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

/**
 * Whether a scrape may read the metrics: always without a configured token; with one (METRICS_TOKEN), only with
 * `Authorization: Bearer <token>`, compared in constant time.
 */
export function metricsScrapeAllowed(authorization: string | undefined, token: string | undefined): boolean {
  if (!token) return true;
  const presented = Buffer.from(/^Bearer (.+)$/i.exec(authorization ?? "")?.[1] ?? "");
  const expected = Buffer.from(token);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/** What a refused scrape is told (the same ErrorBody as every other 401). */
export const METRICS_UNAUTHORISED_MESSAGE = "send Authorization: Bearer <METRICS_TOKEN> to read /metrics";
