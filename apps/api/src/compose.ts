import type { Redis } from "ioredis";
import { createFleetService } from "@throng/core/fleet/fleet-service";
import { createIngestService } from "@throng/core/metrics/ingest";
import { createPlanService } from "@throng/core/plans/plan-service";
import { createRunOrchestrator, DEFAULT_ORCHESTRATION, type OrchestratorConfig } from "@throng/core/runs/run-orchestrator";
import { createRunService } from "@throng/core/runs/run-service";
import { systemClock, type Jobs, type Log } from "@throng/core/ports";
import type { Db } from "@throng/db/client";
import { Channel } from "@throng/protocol/jobs";
import { createRepos } from "@throng/db/repos";
import { createBus, createSubscriber } from "@throng/runtime/redis";
import { createAuth } from "./auth";
import type { ApiEnv } from "./env";
import { createActorResolver } from "./http/session";
import type { ApiDeps } from "./services";

/** Wires core services to Postgres and Redis; shared by main.ts and the integration tests. */
export function composeApi(input: {
  env: Pick<ApiEnv, "AUTH_SECRET" | "WEB_ORIGIN" | "API_PUBLIC_URL" | "HEARTBEAT_INTERVAL_MS" | "NODE_ENV" | "AGENT_BUNDLE_PATH">;
  db: Db; redis: Redis; subscriberRedis: Redis; jobs: Jobs; log: Log; orchestration?: OrchestratorConfig;
}): ApiDeps {
  const { env, db, redis, jobs, log } = input;
  const repos = createRepos(db);
  const bus = createBus(redis);
  const clock = systemClock;
  const auth = createAuth({ db, orgs: repos.orgs, secret: env.AUTH_SECRET, webOrigin: env.WEB_ORIGIN, production: env.NODE_ENV === "production" });
  const fleet = createFleetService({ fleet: repos.fleet, bus, clock, config: { apiPublicUrl: env.API_PUBLIC_URL, heartbeatIntervalMs: env.HEARTBEAT_INTERVAL_MS } });
  return {
    auth,
    resolveActor: createActorResolver(auth, repos.orgs),
    plans: createPlanService({ plans: repos.plans }),
    runs: createRunService({ repos, fleet, jobs }),
    orchestrator: createRunOrchestrator({ repos, fleet, jobs, bus, clock, log, config: input.orchestration ?? DEFAULT_ORCHESTRATION }),
    fleet,
    ingest: createIngestService({ repos, bus }),
    subscriber: createSubscriber(input.subscriberRedis, (err, channel) => log.error({ err, channel }, "bad message on bus")),
    health: { database: () => repos.ping(), redis: async () => void (await redis.ping()) },
    liveSeq: async (runId) => Number((await redis.get(Channel.runSeqKey(runId))) ?? 0),
    install: { apiPublicUrl: env.API_PUBLIC_URL, agentBundlePath: env.AGENT_BUNDLE_PATH },
    config: { heartbeatIntervalMs: env.HEARTBEAT_INTERVAL_MS, flushIntervalMs: 1000, orphanGraceMs: 30_000 },
  };
}
