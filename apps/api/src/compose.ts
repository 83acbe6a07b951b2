import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { createFleetService } from "@throng/core/fleet/fleet-service";
import { createIngestService } from "@throng/core/metrics/ingest";
import type { PointStages } from "@throng/core/metrics/ingest-stages";
import { createServerSampleIngest } from "@throng/core/metrics/server-watch";
import { createApiTokenService } from "@throng/core/orgs/api-tokens";
import { createAuditLog } from "@throng/core/orgs/audit";
import { createOrgService } from "@throng/core/orgs/org-service";
import { createOrgSecretService } from "@throng/core/orgs/org-secrets";
import { createPlanService } from "@throng/core/plans/plan-service";
import { OrgSettings } from "@throng/protocol/orgs";
import { createSessionTrials } from "@throng/core/plans/session-trials";
import { createEstimateService } from "@throng/core/capacity/estimates";
import { createReportService } from "@throng/core/reports/report-service";
import { createScriptService } from "@throng/core/scripts/script-service";
import { createNotificationService } from "@throng/core/notifications/notification-service";
import { createMetricsExportService } from "@throng/core/metrics-export/metrics-export-service";
import { createSealer, credentialsKey, orgSecretsKey } from "@throng/core/metrics-export/sealed-secrets";
import { createSsoSettings } from "@throng/core/sso/sso-settings";
import { createSsoSignIn } from "@throng/core/sso/sso-sign-in";
import { createPlanScheduleService } from "@throng/core/plans/plan-schedules";
import {
  createRunOrchestrator,
  DEFAULT_ORCHESTRATION,
  type OrchestratorConfig,
} from "@throng/core/runs/run-orchestrator";
import { createRunService } from "@throng/core/runs/run-service";
import { systemClock, type Clock, type Jobs, type Log } from "@throng/core/ports";
import type { Db } from "@throng/db/client";
import { Channel } from "@throng/protocol/jobs";
import { createRepos } from "@throng/db/repos";
import { createRateLimiter } from "@throng/runtime/rate-limit";
import { metricsAccess } from "@throng/runtime/metrics";
import { awaitMessage, createBus, createSubscriber } from "@throng/runtime/redis";
import { createAuth, PASSWORD_SESSION_DAYS } from "./auth";
import { readSamlResponseFacts } from "./sso/saml-facts";
import { createOidcDiscovery, createSamlMetadataReader, createTxtResolver, idpHostPolicy } from "./sso/idp-access";
import type { ApiEnv } from "./env";
import type { HelloLimits } from "./gateway/hello-admission";
import { createIdentityResolver } from "./http/actor";
import { createApiMetrics } from "./http/metrics";
import { createPdfRenderer, type PdfRendererConfig } from "./pdf/pdf-renderer";
import type { ApiDeps, RateLimits } from "./services";

type ComposeEnv = Pick<
  ApiEnv,
  | "AUTH_SECRET"
  | "WEB_ORIGIN"
  | "API_PUBLIC_URL"
  | "HEARTBEAT_INTERVAL_MS"
  | "NODE_ENV"
  | "AGENT_BUNDLE_PATH"
  | "QUEUE_PREFIX"
  | "INGEST_COALESCE_MS"
  | "METRICS_TOKEN"
  | "METRICS_EXPORT_KEY"
  | "SECRETS_KEY"
  | "API_HOST"
  | "SSO_DNS_SERVERS"
  | "SSO_PRIVATE_IDP_ORIGINS"
  | "SSO_SESSION_HOURS"
>;

export const DEFAULT_RATE_LIMITS: RateLimits = {
  signIn: { limit: 10, windowSec: 60 },
  signUp: { limit: 10, windowSec: 600 },
  enrolment: { limit: 30, windowSec: 60 },
  runCreate: { limit: 30, windowSec: 60 },
  export: { limit: 60, windowSec: 60 },
};

export const DEFAULT_HELLO_LIMITS: HelloLimits = {
  maxPending: 2000,
  maxPendingPerAddress: 64,
  softPending: 1000,
  helloTimeoutMs: 10_000,
  busyHelloTimeoutMs: 2_000,
  reservedForCredentials: 256,
};

/** The limits main.ts configures from its env (each variable is described in env.ts). */
export function limitsFromEnv(env: ApiEnv): { rateLimits: RateLimits; hello: HelloLimits } {
  return {
    rateLimits: {
      ...DEFAULT_RATE_LIMITS,
      signUp: { limit: env.RATE_LIMIT_SIGN_UPS_PER_10_MIN, windowSec: 600 },
      runCreate: { limit: env.RATE_LIMIT_RUNS_PER_MIN, windowSec: 60 },
      export: { limit: env.RATE_LIMIT_EXPORTS_PER_MIN, windowSec: 60 },
    },
    hello: {
      maxPending: env.AGENT_PENDING_MAX,
      maxPendingPerAddress: env.AGENT_PENDING_PER_ADDRESS,
      softPending: env.AGENT_PENDING_SOFT ?? Math.floor(env.AGENT_PENDING_MAX / 2),
      helloTimeoutMs: env.AGENT_HELLO_TIMEOUT_MS,
      busyHelloTimeoutMs: env.AGENT_BUSY_HELLO_TIMEOUT_MS,
      reservedForCredentials: env.AGENT_PENDING_RESERVED,
    },
  };
}

/**
 * Single sign-on: its secrets sealed with the organisation-secrets key, identity providers reached under the host
 * policy (public addresses, or the operator's SSO_PRIVATE_IDP_ORIGINS), domains proven through node:dns.
 */
function composeSso(
  env: ComposeEnv,
  repos: ReturnType<typeof createRepos>,
  audit: ReturnType<typeof createAuditLog>,
  clock: typeof systemClock,
) {
  const sealer = createSealer(orgSecretsKey({ authSecret: env.AUTH_SECRET, dedicatedKey: env.SECRETS_KEY }));
  const policy = idpHostPolicy(env.SSO_PRIVATE_IDP_ORIGINS);
  const config = {
    authBaseUrl: `${env.WEB_ORIGIN.replace(/\/$/, "")}/api/auth`,
    ssoSessionHours: env.SSO_SESSION_HOURS,
    passwordSessionDays: PASSWORD_SESSION_DAYS,
  };
  return {
    sealer,
    settings: createSsoSettings({
      sso: repos.sso,
      audit,
      sealer,
      clock,
      config,
      resolveTxt: createTxtResolver(env.SSO_DNS_SERVERS),
      discoverOidc: createOidcDiscovery(policy),
      samlMetadata: createSamlMetadataReader(policy),
    }),
    signIn: createSsoSignIn({
      sso: repos.sso,
      orgs: repos.orgs,
      audit,
      clock,
      ssoSessionHours: env.SSO_SESSION_HOURS,
      readSamlResponse: readSamlResponseFacts,
    }),
  };
}

/** Wires core services to Postgres and Redis; shared by main.ts and the integration tests. */
export function composeApi(input: {
  env: ComposeEnv;
  db: Db;
  redis: Redis;
  subscriberRedis: Redis;
  jobs: Jobs;
  log: Log;
  orchestration?: OrchestratorConfig;
  rateLimits?: RateLimits;
  hello?: HelloLimits;
  /** The BullMQ queues whose depth /metrics reports (main.ts: the runs queue). */
  queues?: readonly Queue[];
  /** Report PDFs' Chromium (default: `chromium` on PATH, two at once, 30 s each). */
  pdf?: Partial<PdfRendererConfig>;
  /** Each live point's stage times (the control-plane bench reads them from the debug log). */
  onStages?: (stages: PointStages) => void;
  /** The clock schedules' next firings are read from (default the system's; a test pins it across a DST change). */
  scheduleClock?: Clock;
}): ApiDeps {
  const { env, db, redis, jobs, log } = input;
  const repos = createRepos(db);
  const bus = createBus(redis);
  const clock = systemClock;
  const audit = createAuditLog({ security: repos.security });
  const sso = composeSso(env, repos, audit, clock);
  const auth = createAuth({
    db,
    orgs: repos.orgs,
    ssoSignIn: sso.signIn,
    sealer: sso.sealer,
    secret: env.AUTH_SECRET,
    webOrigin: env.WEB_ORIGIN,
    production: env.NODE_ENV === "production",
    privateIdpOrigins: env.SSO_PRIVATE_IDP_ORIGINS,
  });
  const fleet = createFleetService({
    fleet: repos.fleet,
    bus,
    clock,
    audit,
    config: { apiPublicUrl: env.API_PUBLIC_URL, heartbeatIntervalMs: env.HEARTBEAT_INTERVAL_MS },
  });
  const scripts = createScriptService({ scripts: repos.scripts, audit });
  const subscriber = createSubscriber(input.subscriberRedis, (err, channel) =>
    log.error({ err, channel }, "bad message on bus"),
  );
  const apiTokens = createApiTokenService({ security: repos.security, orgs: repos.orgs, audit, clock });
  const schedules = createPlanScheduleService({ repos, jobs, clock: input.scheduleClock ?? clock, log, audit });
  return {
    auth,
    resolveIdentity: createIdentityResolver(auth, repos.orgs, apiTokens, sso.signIn),
    sso: { settings: sso.settings, signIn: sso.signIn },
    trials: createSessionTrials({
      repos,
      fleet,
      bus,
      awaitReply: (channel, timeoutMs, send) => awaitMessage(subscriber, channel, timeoutMs, send),
    }),
    plans: createPlanService({
      plans: repos.plans,
      runs: repos.runs,
      scripts,
      secrets: repos.secrets,
      settings: async (orgId) => OrgSettings.parse((await repos.orgs.getSettings(orgId)) ?? {}),
      agents: (orgId) => fleet.listAgents(orgId),
      nextScheduledRuns: (orgId) => schedules.nextByPlan(orgId),
    }),
    scripts,
    runs: createRunService({ repos, fleet, jobs, scripts }),
    notifications: createNotificationService({ repos, jobs, dashboardUrl: env.WEB_ORIGIN, audit }),
    metricsExport: createMetricsExportService({
      repos,
      jobs,
      clock,
      sealer: createSealer(credentialsKey({ authSecret: env.AUTH_SECRET, dedicatedKey: env.METRICS_EXPORT_KEY })),
    }),
    schedules,
    orchestrator: createRunOrchestrator({
      repos,
      fleet,
      jobs,
      bus,
      clock,
      log,
      audit,
      config: input.orchestration ?? DEFAULT_ORCHESTRATION,
    }),
    fleet,
    ingest: createIngestService({
      repos,
      bus,
      log,
      coalesceMs: env.INGEST_COALESCE_MS,
      onStages: input.onStages,
      onLateSnapshot: (orgId, runId) => jobs.rejudgeRun({ orgId, runId }),
    }),
    serverSamples: createServerSampleIngest({ repos, bus, log }),
    orgs: createOrgService({ orgs: repos.orgs, audit, clock, webOrigin: env.WEB_ORIGIN }),
    secrets: createOrgSecretService({
      secrets: repos.secrets,
      audit,
      sealer: createSealer(orgSecretsKey({ authSecret: env.AUTH_SECRET, dedicatedKey: env.SECRETS_KEY })),
    }),
    apiTokens,
    audit,
    reports: createReportService({ repos, audit, clock, webOrigin: env.WEB_ORIGIN }),
    pdf: createPdfRenderer({ chromiumPath: "chromium", concurrency: 2, timeoutMs: 30_000, ...input.pdf }, log),
    estimates: createEstimateService({ repos }),
    subscriber,
    rateLimiter: createRateLimiter(redis, env.QUEUE_PREFIX),
    rateLimits: input.rateLimits ?? DEFAULT_RATE_LIMITS,
    hello: input.hello ?? DEFAULT_HELLO_LIMITS,
    health: { database: () => repos.ping(), redis: async () => void (await redis.ping()) },
    metrics: createApiMetrics({ queues: input.queues ?? [], access: metricsAccess(env.METRICS_TOKEN, env.API_HOST) }),
    liveSeq: async (runId) => Number((await redis.get(Channel.runSeqKey(runId))) ?? 0),
    install: { apiPublicUrl: env.API_PUBLIC_URL, agentBundlePath: env.AGENT_BUNDLE_PATH },
    web: { origin: env.WEB_ORIGIN, production: env.NODE_ENV === "production" },
    config: { heartbeatIntervalMs: env.HEARTBEAT_INTERVAL_MS, flushIntervalMs: 1000, orphanGraceMs: 30_000 },
  };
}
