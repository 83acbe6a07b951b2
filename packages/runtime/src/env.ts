import { z } from "zod";

/** An optional AES-256-GCM key: base64 of 32 bytes, its variable named in the error. */
export function sealingKey(name: string) {
  return z
    .string()
    .refine(
      (v) => Buffer.from(v, "base64").length === 32,
      `${name} must be 32 bytes in base64 (openssl rand -base64 32)`,
    )
    .optional();
}

/**
 * The variables the api and the workers both read, each worded once: the stores and queue they share, the dashboard's
 * address, logging, the metrics-export key and the /metrics token. Each service's `env.ts` extends it with its own.
 */
export const ServiceEnv = z.object({
  DATABASE_URL: z
    .string({ error: "set DATABASE_URL=postgres://user:pass@host:5432/db (npm start sets it for you)" })
    .min(1),
  REDIS_URL: z.string({ error: "set REDIS_URL=redis://host:6379 (npm start sets it for you)" }).min(1),
  QUEUE_PREFIX: z.string().default("throng"),
  HEARTBEAT_INTERVAL_MS: z.coerce.number().int().min(100).default(5000),
  /** The dashboard's address, as the browser sees it (the api's CORS origin, the run links in notifications). */
  WEB_ORIGIN: z.string().url().default("http://localhost:3000"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /**
   * The key metrics-export credentials are sealed with (AES-256-GCM): base64 of 32 bytes, the same in api and workers.
   * Unset, one is derived from AUTH_SECRET; set it to rotate AUTH_SECRET without re-entering them.
   */
  METRICS_EXPORT_KEY: sealingKey("METRICS_EXPORT_KEY"),
  /**
   * GET /metrics wants `Authorization: Bearer <this>` (401 without); unset, /metrics answers only when the service
   * listens on loopback only (API_HOST, WORKERS_METRICS_HOST).
   */
  METRICS_TOKEN: z.string().min(16, "METRICS_TOKEN must be at least 16 characters (openssl rand -hex 24)").optional(),
});

/** `source` read by a service's `schema`, or an error naming each variable that is wrong and what to set. */
export function parseServiceEnv<S extends z.ZodType>(
  schema: S,
  source: NodeJS.ProcessEnv,
  service: string,
): z.infer<S> {
  const result = schema.safeParse(source);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
  throw new Error(`Invalid ${service} configuration:\n${lines.join("\n")}`);
}
