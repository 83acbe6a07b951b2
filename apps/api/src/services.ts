import type { FleetService } from "@throng/core/fleet/fleet-service";
import type { IngestService } from "@throng/core/metrics/ingest";
import type { PlanService } from "@throng/core/plans/plan-service";
import type { RunOrchestrator } from "@throng/core/runs/run-orchestrator";
import type { RunService } from "@throng/core/runs/run-service";
import type { Subscriber } from "@throng/runtime/redis";
import type { Auth } from "./auth";
import type { ResolveActor } from "./http/session";

/** Everything the routes and the gateway call; composed once in main.ts (or in a test). */
export interface ApiDeps {
  auth: Auth;
  resolveActor: ResolveActor;
  plans: PlanService;
  runs: RunService;
  orchestrator: RunOrchestrator;
  fleet: FleetService;
  ingest: IngestService;
  subscriber: Subscriber;
  health: { database(): Promise<void>; redis(): Promise<void> };
  /** The run's live message counter as it is now (0 before the first message). */
  liveSeq(runId: string): Promise<number>;
  install: { apiPublicUrl: string; agentBundlePath: string };
  config: { heartbeatIntervalMs: number; flushIntervalMs: number; orphanGraceMs: number };
}
