import { z } from "zod";

/** The workers' configuration, parsed once in main.ts. */
export const WorkersEnv = z.object({
  DATABASE_URL: z.string({ error: "set DATABASE_URL=postgres://user:pass@host:5432/db (npm start sets it for you)" }).min(1),
  REDIS_URL: z.string({ error: "set REDIS_URL=redis://host:6379 (npm start sets it for you)" }).min(1),
  QUEUE_PREFIX: z.string().default("throng"),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(8),
  HEARTBEAT_INTERVAL_MS: z.coerce.number().int().min(100).default(5000),
  /** The dashboard's address, for the run links in notifications. */
  WEB_ORIGIN: z.string().url().default("http://localhost:3000"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});
export type WorkersEnv = z.infer<typeof WorkersEnv>;

export function parseWorkersEnv(source: NodeJS.ProcessEnv): WorkersEnv {
  const result = WorkersEnv.safeParse(source);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
  throw new Error(`Invalid workers configuration:\n${lines.join("\n")}`);
}
