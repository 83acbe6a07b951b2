import { readFileSync } from "node:fs";
import { z } from "zod";
import { parseServiceEnv, ServiceEnv, sealingKey } from "@throng/runtime/env";

/** The process's soft open-file limit (`ulimit -n`) from /proc/self/limits; null where there is no /proc. */
export function openFileLimit(): number | null {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((l) => l.startsWith("Max open files"));
    const soft = Number(line?.split(/\s{2,}/)[1]);
    return Number.isFinite(soft) && soft > 0 ? soft : null;
  } catch {
    return null;
  }
}

/**
 * Connections waiting for hello may take a tenth of the open files (at most 2,000): the other nine tenths stay for
 * agents that said hello, browsers, Postgres and Redis. 10,500 such connections took the api to its 20,000 limit.
 */
const defaultMaxPending = () => Math.max(64, Math.min(2000, Math.floor((openFileLimit() ?? 20_000) / 10)));

/** A comma-separated variable as its trimmed, non-empty items; unset, none. */
const commaList = z
  .string()
  .optional()
  .transform((v) =>
    v
      ? v
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
      : [],
  );

/** The API's configuration, parsed once in main.ts; every variable has a default or says what to set. */
export const ApiEnv = ServiceEnv.extend({
  API_HOST: z.string().default("0.0.0.0"),
  API_PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  API_PUBLIC_URL: z.string().url().default("http://localhost:4000"),
  AUTH_SECRET: z
    .string({ error: "set AUTH_SECRET to a random string of at least 32 characters (npm start generates one)" })
    .min(32, "AUTH_SECRET must be at least 32 characters"),
  /** The one-file agent served at /agent/throng-agent.mjs (built by `npm run build -w @throng/agent`). */
  AGENT_BUNDLE_PATH: z.string().default(new URL("../../../agent/dist/throng-agent.mjs", import.meta.url).pathname),
  /**
   * Snapshots of one second arriving within this window are merged once (0: merge on every snapshot). 100 ms: at
   * 2,000 agents the 250 ms window was the largest stage left once points stopped waiting for the fsync
   * (docs/benchmarks.md, "Control plane"); merges are cheap since points stopped carrying every agent's health.
   */
  INGEST_COALESCE_MS: z.coerce.number().int().min(0).max(5000).default(100),
  /** Agent gateway connections waiting for hello, all sources; over it an upgrade is answered 503 with Retry-After. */
  AGENT_PENDING_MAX: z.coerce.number().int().min(1).default(defaultMaxPending),
  /** ... from one source address; over it 429 with Retry-After. */
  AGENT_PENDING_PER_ADDRESS: z.coerce.number().int().min(1).default(64),
  /** Beyond this many waiting (default half the maximum) a new connection gets AGENT_BUSY_HELLO_TIMEOUT_MS for its hello. */
  AGENT_PENDING_SOFT: z.coerce.number().int().min(0).optional(),
  AGENT_HELLO_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  AGENT_BUSY_HELLO_TIMEOUT_MS: z.coerce.number().int().min(100).default(2_000),
  /** Slots above the maximum for upgrades that prove an agent credential, so enrolled agents get in during a flood. */
  AGENT_PENDING_RESERVED: z.coerce.number().int().min(0).default(256),
  /** Accounts one address may create per 10 minutes (429 with Retry-After past it). */
  RATE_LIMIT_SIGN_UPS_PER_10_MIN: z.coerce.number().int().min(1).default(10),
  /** Runs one API token or browser session may start per minute (429 with Retry-After past it). */
  RATE_LIMIT_RUNS_PER_MIN: z.coerce.number().int().min(1).default(30),
  /** Report and CSV exports one API token or browser session may fetch per minute. */
  RATE_LIMIT_EXPORTS_PER_MIN: z.coerce.number().int().min(1).default(60),
  /** The Chromium that renders report PDFs: a path, or a name on PATH. Without one the PDF routes answer 503. */
  CHROMIUM_PATH: z
    .string()
    .min(1, "set CHROMIUM_PATH to a Chromium binary (e.g. /usr/bin/chromium) or leave it unset for `chromium` on PATH")
    .default("chromium"),
  /** Report PDFs rendered at once (each a Chromium page of tens of MB); more wait their turn. */
  PDF_RENDERS_MAX: z.coerce.number().int().min(1).max(32).default(2),
  /** One PDF render, waiting included; past it the caller gets 504. */
  PDF_RENDER_TIMEOUT_MS: z.coerce.number().int().min(1000).default(30_000),
  /**
   * The key organisation secrets are sealed with (AES-256-GCM): base64 of 32 bytes. Unset, one is derived from
   * AUTH_SECRET; set it to rotate AUTH_SECRET without setting every secret again. Only the api opens secrets.
   */
  SECRETS_KEY: sealingKey("SECRETS_KEY"),
  /**
   * DNS servers (host or host:port, comma-separated) that domain verification asks for TXT records; unset, the
   * system's resolvers. Tests point it at a DNS server of their own.
   */
  SSO_DNS_SERVERS: commaList,
  /**
   * Origins of identity providers on a private network or loopback (comma-separated; `*` allowed, e.g.
   * http://127.0.0.1:*). Others must resolve to public addresses: Throng fetches discovery, tokens and keys from them.
   * These origins are also trusted as sign-in redirect targets, so list only identity providers.
   */
  SSO_PRIVATE_IDP_ORIGINS: commaList,
  /** How long a session opened through single sign-on lasts from its sign-in, whatever happens at the provider. */
  SSO_SESSION_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 30)
    .default(24),
  NODE_ENV: z.string().default("development"),
});
export type ApiEnv = z.infer<typeof ApiEnv>;

export function parseApiEnv(source: NodeJS.ProcessEnv): ApiEnv {
  return parseServiceEnv(ApiEnv, source, "API");
}
