import { createServer, type Server } from "node:http";
import type { Queue, Worker } from "bullmq";
import type { ErrorBody } from "@throng/protocol/errors";
import {
  Counter,
  createMetricsRegistry,
  metricsRefusal,
  metricsScrapeAllowed,
  registerQueueDepth,
  type MetricsAccess,
} from "@throng/runtime/metrics";

/** What /health probes: the same two dependencies the api reports. */
export interface WorkersHealth {
  database(): Promise<void>;
  redis(): Promise<void>;
}

/** The workers' metrics: default process metrics, queue depth at scrape time, and jobs finished by name and outcome. */
export function createWorkersMetrics(input: { queues: readonly Queue[]; worker: Worker }) {
  const registry = createMetricsRegistry();
  registerQueueDepth(registry, input.queues);
  const jobs = new Counter({
    name: "throng_jobs_processed_total",
    help: "Jobs this workers process finished, by job name and outcome (completed, failed)",
    labelNames: ["name", "outcome"],
    registers: [registry],
  });
  input.worker.on("completed", (job) => jobs.inc({ name: job.name, outcome: "completed" }));
  input.worker.on("failed", (job) => jobs.inc({ name: job?.name ?? "unknown", outcome: "failed" }));
  return registry;
}

async function probe(check: () => Promise<void>): Promise<"ok" | "down"> {
  return check().then(
    () => "ok" as const,
    () => "down" as const,
  );
}

/**
 * The workers have no API of their own: this answers GET /metrics (Prometheus) and GET /health (for a liveness
 * or readiness probe), nothing else. Resolves once listening; a port already taken fails the start.
 */
export async function startMetricsServer(input: {
  host: string;
  port: number;
  access: MetricsAccess;
  registry: ReturnType<typeof createWorkersMetrics>;
  health: WorkersHealth;
}): Promise<Server> {
  const json = (status: number, body: unknown) => ({ status, type: "application/json", body: JSON.stringify(body) });
  const error = (status: number, code: ErrorBody["error"]["code"], message: string) =>
    json(status, { error: { code, message } } satisfies ErrorBody);
  async function answer(method: string, path: string, authorization: string | undefined) {
    if (path !== "/metrics" && path !== "/health")
      return error(404, "not_found", `No route ${method} ${path}: the workers serve GET /metrics and GET /health`);
    if (method !== "GET" && method !== "HEAD") return error(405, "method_not_allowed", `${path} takes GET`);
    if (path === "/health") {
      const [database, redis] = await Promise.all([probe(input.health.database), probe(input.health.redis)]);
      const ok = database === "ok" && redis === "ok";
      return json(ok ? 200 : 503, { status: ok ? "ok" : "degraded", database, redis });
    }
    if (!metricsScrapeAllowed(authorization, input.access))
      return error(401, "unauthenticated", metricsRefusal(input.access));
    return { status: 200, type: input.registry.contentType, body: await input.registry.metrics() };
  }
  const server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0]!;
    answer(request.method ?? "GET", path, request.headers.authorization)
      .catch(() => error(500, "internal", "collecting the metrics failed; see the workers' log"))
      .then(({ status, type, body }) => {
        const headers = {
          "content-type": type,
          "cache-control": "no-store",
          "x-content-type-options": "nosniff",
          ...(status === 405 ? { allow: "GET" } : {}),
        };
        response.writeHead(status, headers).end(request.method === "HEAD" ? undefined : body);
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(input.port, input.host, () => resolve());
  });
  return server;
}
