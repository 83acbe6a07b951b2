import { describe, expect, it } from "vitest";
import { parseWorkersEnv } from "./env";

const required = { DATABASE_URL: "postgres://x", REDIS_URL: "redis://x" };

describe("the workers' configuration", () => {
  it("names each missing variable and what to set", () => {
    expect(() => parseWorkersEnv({})).toThrow(
      /^Invalid workers configuration:\n {2}DATABASE_URL: set DATABASE_URL=postgres:.*\n {2}REDIS_URL: set REDIS_URL=redis:/,
    );
  });

  it("takes the api's sealing key only as 32 bytes in base64, and defaults the rest", () => {
    expect(() => parseWorkersEnv({ ...required, METRICS_EXPORT_KEY: "c2hvcnQ=" })).toThrow(
      "METRICS_EXPORT_KEY: METRICS_EXPORT_KEY must be 32 bytes in base64",
    );
    const key = Buffer.alloc(32, 7).toString("base64");
    expect(parseWorkersEnv({ ...required, METRICS_EXPORT_KEY: key })).toMatchObject({
      METRICS_EXPORT_KEY: key,
      QUEUE_PREFIX: "throng",
      WORKER_CONCURRENCY: 8,
      HEARTBEAT_INTERVAL_MS: 5000,
      LOG_LEVEL: "info",
    });
  });
});
