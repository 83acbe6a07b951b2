import type { FleetService } from "@throng/core/fleet/fleet-service";
import type { IngestService } from "@throng/core/metrics/ingest";
import type { ServerSampleIngest } from "@throng/core/metrics/server-watch";
import type { ApiTokenService } from "@throng/core/orgs/api-tokens";
import type { AuditLog } from "@throng/core/orgs/audit";
import type { OrgService } from "@throng/core/orgs/org-service";
import type { OrgSecretService } from "@throng/core/orgs/org-secrets";
import type { PlanService } from "@throng/core/plans/plan-service";
import type { SessionTrials } from "@throng/core/plans/session-trials";
import type { EstimateService } from "@throng/core/capacity/estimates";
import type { ReportService } from "@throng/core/reports/report-service";
import type { ScriptService } from "@throng/core/scripts/script-service";
import type { NotificationService } from "@throng/core/notifications/notification-service";
import type { MetricsExportService } from "@throng/core/metrics-export/metrics-export-service";
import type { PlanScheduleService } from "@throng/core/plans/plan-schedules";
import type { RunOrchestrator } from "@throng/core/runs/run-orchestrator";
import type { RunService } from "@throng/core/runs/run-service";
import type { SsoSettingsService } from "@throng/core/sso/sso-settings";
import type { SsoSignInService } from "@throng/core/sso/sso-sign-in";
import type { RateLimiter, RateLimitRule } from "@throng/runtime/rate-limit";
import type { Subscriber } from "@throng/runtime/redis";
import type { Auth } from "./auth";
import type { HelloLimits } from "./gateway/hello-admission";
import type { ApiMetrics } from "./http/metrics";
import type { ResolveIdentity } from "./http/actor";
import type { PdfRenderer } from "./pdf/pdf-renderer";

/** Per-IP (and per-email for sign-in) limits on the doors attackers knock on; per caller on the costly calls. */
export interface RateLimits {
  signIn: RateLimitRule;
  signUp: RateLimitRule;
  enrolment: RateLimitRule;
  /** Runs started per API token or browser session. */
  runCreate: RateLimitRule;
  /** Report and CSV exports per API token or browser session. */
  export: RateLimitRule;
}

/** Everything the routes and the gateway call; composed once in main.ts (or in a test). */
export interface ApiDeps {
  auth: Auth;
  resolveIdentity: ResolveIdentity;
  plans: PlanService;
  /** "Try it": one client of a plan's session from an online agent (agent/PROTOCOL.md §13). */
  trials: SessionTrials;
  /** Script bundles a script plan runs; agents fetch them over their socket (PROTOCOL.md). */
  scripts: ScriptService;
  runs: RunService;
  /** Run notification channels and their delivery log (the workers deliver). */
  notifications: NotificationService;
  /** Where runs stream their series (Prometheus remote write, OTLP); the workers push. */
  metricsExport: MetricsExportService;
  /** Plans on a cron schedule (the workers fire them). */
  schedules: PlanScheduleService;
  orchestrator: RunOrchestrator;
  fleet: FleetService;
  ingest: IngestService;
  /** Watchers' samples of the server under test (agent/PROTOCOL.md §11). */
  serverSamples: ServerSampleIngest;
  orgs: OrgService;
  /** Organisation secrets: sealed at rest, never answered back; the gateway hands a shard's own to its agent. */
  secrets: OrgSecretService;
  apiTokens: ApiTokenService;
  /** Single sign-on: the settings page (domains, providers, Require SSO) and the sign-in rules. */
  sso: { settings: SsoSettingsService; signIn: SsoSignInService };
  audit: AuditLog;
  reports: ReportService;
  /** Prints reports to PDF in headless Chromium (one browser, closed with the app). */
  pdf: PdfRenderer;
  estimates: EstimateService;
  subscriber: Subscriber;
  rateLimiter: RateLimiter;
  rateLimits: RateLimits;
  /** Caps on agent gateway connections that have not said hello yet. */
  hello: HelloLimits;
  health: { database(): Promise<void>; redis(): Promise<void> };
  /** What GET /metrics exposes (and the token it wants, if any). */
  metrics: ApiMetrics;
  /** The run's live message counter as it is now (0 before the first message). */
  liveSeq(runId: string): Promise<number>;
  install: { apiPublicUrl: string; agentBundlePath: string };
  web: { origin: string; production: boolean };
  config: { heartbeatIntervalMs: number; flushIntervalMs: number; orphanGraceMs: number };
}
