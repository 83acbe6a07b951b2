import { z } from "zod";
import { parseServiceEnv, ServiceEnv } from "@throng/runtime/env";

/** The workers' configuration, parsed once in main.ts. */
export const WorkersEnv = ServiceEnv.extend({
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(8),
  /** The api's AUTH_SECRET: metrics-export credentials are sealed with a key derived from it (unless METRICS_EXPORT_KEY). */
  AUTH_SECRET: z.string().min(32, "AUTH_SECRET must be at least 32 characters (the api's own)").optional(),
  /**
   * The small HTTP server for GET /metrics and GET /health (0: none). 9464, the usual port of a process's own
   * Prometheus exporter: 4001 and up are where compose puts the api replicas (infra/compose/compose.yaml).
   */
  WORKERS_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  WORKERS_METRICS_HOST: z.string().min(1).default("0.0.0.0"),
});
export type WorkersEnv = z.infer<typeof WorkersEnv>;

export function parseWorkersEnv(source: NodeJS.ProcessEnv): WorkersEnv {
  return parseServiceEnv(WorkersEnv, source, "workers");
}
