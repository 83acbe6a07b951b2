import { z } from "zod";

/** The workers' configuration, parsed once in main.ts. */
export const WorkersEnv = z.object({
  DATABASE_URL: z
    .string({ error: "set DATABASE_URL=postgres://user:pass@host:5432/db (npm start sets it for you)" })
    .min(1),
  REDIS_URL: z.string({ error: "set REDIS_URL=redis://host:6379 (npm start sets it for you)" }).min(1),
  QUEUE_PREFIX: z.string().default("throng"),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(8),
  HEARTBEAT_INTERVAL_MS: z.coerce.number().int().min(100).default(5000),
  /** The dashboard's address, for the run links in notifications. */
  WEB_ORIGIN: z.string().url().default("http://localhost:3000"),
  /** The api's AUTH_SECRET: metrics-export credentials are sealed with a key derived from it (unless METRICS_EXPORT_KEY). */
  AUTH_SECRET: z.string().min(32, "AUTH_SECRET must be at least 32 characters (the api's own)").optional(),
  /** The api's METRICS_EXPORT_KEY, when it has one (base64 of 32 bytes). */
  METRICS_EXPORT_KEY: z
    .string()
    .refine(
      (v) => Buffer.from(v, "base64").length === 32,
      "METRICS_EXPORT_KEY must be 32 bytes in base64 (openssl rand -base64 32)",
    )
    .optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /**
   * The small HTTP server for GET /metrics and GET /health (0: none). 9464, the usual port of a process's own
   * Prometheus exporter: 4001 and up are where compose puts the api replicas (infra/compose/compose.yaml).
   */
  WORKERS_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  WORKERS_METRICS_HOST: z.string().min(1).default("0.0.0.0"),
  /** GET /metrics wants `Authorization: Bearer <this>` (401 without); unset, it answers only when WORKERS_METRICS_HOST is loopback-only. */
  METRICS_TOKEN: z.string().min(16, "METRICS_TOKEN must be at least 16 characters (openssl rand -hex 24)").optional(),
});
export type WorkersEnv = z.infer<typeof WorkersEnv>;

export function parseWorkersEnv(source: NodeJS.ProcessEnv): WorkersEnv {
  const result = WorkersEnv.safeParse(source);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
  throw new Error(`Invalid workers configuration:\n${lines.join("\n")}`);
}
