import type { ColumnType, Generated } from "kysely";
import type { AgentCapabilities } from "@throng/protocol/agent";

// Table types for Kysely, kept in step with db/migrations by hand (the int tests insert and read every column).

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type Json<T> = ColumnType<T, string, string>;

export interface OrganizationTable {
  id: string;
  name: string;
  slug: string;
  logo: string | null;
  createdAt: Timestamp;
  metadata: string | null;
}

export interface MemberTable {
  id: string;
  organizationId: string;
  userId: string;
  role: string;
  createdAt: Timestamp;
}

export interface UserTable {
  id: string;
  name: string;
  email: string;
  emailVerified: boolean;
  image: string | null;
  createdAt: Generated<Date>;
  updatedAt: Generated<Date>;
}

export interface EnrolmentTokenTable {
  id: string;
  org_id: string;
  token_hash: string;
  created_by: string | null;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
  created_at: Generated<Date>;
  single_use: Generated<boolean>;
  used_at: Timestamp | null;
}

export interface AgentTable {
  id: string;
  org_id: string;
  secret_hash: string;
  hostname: string;
  os: string;
  arch: string;
  cores: number;
  memory_bytes: number;
  version: string;
  labels: Json<Record<string, string>>;
  /** "load" or "watch" (migration 010). */
  role: Generated<string>;
  /** From the agent's hello (migration 021); null when it did not say. */
  open_file_limit: number | null;
  clients_per_engine: number | null;
  max_engines: number | null;
  /** What its owner lets it run, from its hello (migration 025); null when it did not say. */
  capabilities: Json<AgentCapabilities> | null;
  connected: Generated<boolean>;
  last_seen_at: Timestamp | null;
  revoked_at: Timestamp | null;
  created_at: Generated<Date>;
  ip: string | null;
}

export interface PlanTable {
  id: string;
  org_id: string;
  name: string;
  version: Generated<number>;
  spec: Json<unknown>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  archived_at: Date | null;
  /** The run every later run of the plan is compared with (migration 026). */
  baseline_run_id: string | null;
}

export interface RunTable {
  id: string;
  org_id: string;
  plan_id: string;
  spec: Json<unknown>;
  status: string;
  error: string | null;
  summary: Json<unknown> | null;
  verdict: Json<unknown> | null;
  capacity: Json<unknown> | null;
  plan_version: number | null;
  start_at: Timestamp | null;
  created_at: Generated<Date>;
  started_at: Timestamp | null;
  ended_at: Timestamp | null;
  /** Who started the run, as the audit log names actors (an email, "token <name>"); null for older runs. */
  started_by: string | null;
  /** The team's note and tags (018-run-notes-tags.sql), and who changed them last. */
  note: Generated<string>;
  tags: Generated<string[]>;
  notes_edited_by: string | null;
  notes_edited_at: Timestamp | null;
  /** How many stored snapshots the summary and verdict were judged on (020-judged-snapshots.sql); null before. */
  judged_snapshots: number | null;
}

export interface RunShardTable {
  run_id: string;
  agent_id: string;
  org_id: string;
  shard_index: number;
  clients: number;
  /** "load" or "watch" (migration 010). */
  role: Generated<string>;
  state: Generated<string>;
  last_seq: number | null;
  error: string | null;
}

export interface SnapshotTable {
  run_id: string;
  agent_id: string;
  seq: number;
  org_id: string;
  second: number;
  interval_ms: number;
  clients: number;
  counters: Json<unknown>;
  rtt_hist: string;
  histograms: ColumnType<Record<string, string>, string | undefined, string>;
  step: number | null;
  health: Json<unknown>;
  /** Network cohorts' own figures by cohort name (023-snapshot-cohorts.sql); null without cohorts. */
  cohorts: ColumnType<unknown, string | null | undefined, string | null>;
  received_at: Generated<Date>;
}

export interface RunSearchStepTable {
  run_id: string;
  org_id: string;
  step: number;
  clients: number;
  phase: string;
  start_at: Date;
  held: boolean | null;
  judged_at: Date | null;
}

export interface RunEventTable {
  id: Generated<number>;
  run_id: string;
  org_id: string;
  at: Generated<Date>;
  kind: string;
  agent_id: string | null;
  message: string;
}

export interface RunSecondTable {
  run_id: string;
  org_id: string;
  second: number;
  point: Json<unknown>;
}

/** One watcher's sample of the server under test for one second of a run (migration 010). */
export interface RunServerSampleTable {
  run_id: string;
  agent_id: string;
  seq: number;
  org_id: string;
  second: number;
  sample: Json<unknown>;
  received_at: Generated<Date>;
}

export interface RunErrorSampleTable {
  run_id: string;
  kind: string;
  fingerprint: string;
  org_id: string;
  agent_id: string;
  message: string;
  at: number;
  client: number | null;
  bytes_length: number | null;
  bytes_hex: string | null;
  received_at: Generated<Date>;
}

/** movement-sync: each agent's latest rooms report for a run (migration 034). */
export interface RunRoomsTable {
  run_id: string;
  agent_id: string;
  org_id: string;
  seq: number;
  report: Json<unknown>;
}

export interface OrgInvitationTable {
  id: string;
  org_id: string;
  token_hash: string;
  role: string;
  created_by: string | null;
  expires_at: Timestamp;
  accepted_by: string | null;
  accepted_at: Timestamp | null;
  revoked_at: Timestamp | null;
  created_at: Generated<Date>;
}

export interface ApiTokenTable {
  id: string;
  org_id: string;
  name: string;
  token_hash: string;
  scope: string;
  created_by: string;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
  last_used_at: Timestamp | null;
  created_at: Generated<Date>;
}

export interface AuditLogTable {
  id: Generated<number>;
  org_id: string;
  at: Generated<Date>;
  actor: string;
  action: string;
  target: string | null;
  details: Json<Record<string, unknown>>;
}

export interface OrgSettingsTable {
  org_id: string;
  settings: Json<unknown>;
}

export interface SessionTable {
  id: string;
  token: string;
  userId: string;
  activeOrganizationId: string | null;
  expiresAt: Timestamp;
  createdAt: Generated<Date>;
  /** The SSO provider the session was opened through; null for the password form (migration 024). */
  ssoProviderId: string | null;
}

/** Better Auth's SSO plugin table, with Throng's own columns beside the plugin's (migration 024). */
export interface SsoProviderTable {
  id: string;
  issuer: string;
  oidcConfig: string | null;
  samlConfig: string | null;
  userId: string | null;
  providerId: string;
  organizationId: string;
  domain: string;
  domainVerified: Generated<boolean>;
  name: Generated<string>;
  role_claim: string | null;
  role_rules: Json<{ value: string; role: string }[]>;
  default_role: Generated<string>;
  metadata_url: string | null;
  /** Off: the provider signs nobody in (migration 029). */
  enabled: Generated<boolean>;
  created_by: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface SsoDomainTable {
  org_id: string;
  domain: string;
  token: string;
  verified_at: Timestamp | null;
  verified_by: string | null;
  created_at: Generated<Date>;
}

export interface SsoPolicyTable {
  org_id: string;
  require_sso: boolean;
  changed_by: string | null;
  changed_at: Timestamp;
}

export interface ShareLinkTable {
  id: string;
  org_id: string;
  run_id: string;
  token_hash: string;
  created_by: string | null;
  expires_at: Timestamp | null;
  revoked_at: Timestamp | null;
  created_at: Generated<Date>;
}

export interface CapacityEstimateTable {
  id: string;
  org_id: string;
  target_name: string;
  build: string;
  run_id: string;
  clients: number | null;
  valid: boolean;
  sentence: string;
  created_at: Generated<Date>;
}

export interface PlanVersionTable {
  plan_id: string;
  org_id: string;
  version: number;
  spec: Json<unknown>;
  created_at: Generated<Date>;
}

export interface ScriptBundleTable {
  org_id: string;
  sha256: string;
  name: string;
  source: string;
  size_bytes: number;
  created_by: string | null;
  created_at: Generated<Date>;
}

export interface NotificationChannelTable {
  id: string;
  org_id: string;
  kind: string;
  name: string;
  url: string;
  events: string[];
  created_at: Generated<Date>;
}

export interface NotificationDeliveryTable {
  id: string;
  org_id: string;
  channel_id: string;
  run_id: string | null;
  /** 'schedule-failed' deliveries: the plan whose scheduled run did not start, and why. */
  plan_id: string | null;
  detail: string | null;
  event: string;
  status: string;
  attempts: Generated<number>;
  response_status: number | null;
  last_error: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface MetricsExportSinkTable {
  org_id: string;
  sink: string;
  url: string;
  auth: string;
  username: string | null;
  secret_sealed: string | null;
  headers_sealed: string | null;
  header_names: string[];
  last_success_at: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
  updated_at: Generated<Date>;
}

export interface RunMetricsExportTable {
  run_id: string;
  org_id: string;
  sink: string;
  /** bigint: the driver answers a string. */
  last_second: ColumnType<string | null, number | null, number | null>;
  totals: ColumnType<unknown, string, string>;
  summary_sent: Generated<boolean>;
  updated_at: Generated<Date>;
}

export interface OrgSecretTable {
  org_id: string;
  name: string;
  value_sealed: string;
  created_by: string | null;
  created_at: Generated<Date>;
  updated_by: string | null;
  updated_at: Generated<Date>;
}

export interface PlanScheduleTable {
  plan_id: string;
  org_id: string;
  cron: string;
  timezone: Generated<string>;
  created_by: string;
  updated_at: Generated<Date>;
  /** The last time it fired: the run it started, or why none did. */
  last_attempt_at: Date | null;
  last_run_id: string | null;
  last_error: string | null;
  /** Set while the schedule is paused (it keeps its cron and zone; its job scheduler is removed), with who paused it. */
  paused_at: Date | null;
  paused_by: string | null;
}

export interface Database {
  organization: OrganizationTable;
  member: MemberTable;
  user: UserTable;
  enrolment_tokens: EnrolmentTokenTable;
  agents: AgentTable;
  plans: PlanTable;
  plan_versions: PlanVersionTable;
  runs: RunTable;
  run_shards: RunShardTable;
  snapshots: SnapshotTable;
  run_events: RunEventTable;
  run_search_steps: RunSearchStepTable;
  run_seconds: RunSecondTable;
  run_server_samples: RunServerSampleTable;
  run_error_samples: RunErrorSampleTable;
  run_rooms: RunRoomsTable;
  org_invitations: OrgInvitationTable;
  api_tokens: ApiTokenTable;
  audit_log: AuditLogTable;
  org_settings: OrgSettingsTable;
  session: SessionTable;
  ssoProvider: SsoProviderTable;
  sso_domains: SsoDomainTable;
  sso_policies: SsoPolicyTable;
  share_links: ShareLinkTable;
  capacity_estimates: CapacityEstimateTable;
  script_bundles: ScriptBundleTable;
  notification_channels: NotificationChannelTable;
  notification_deliveries: NotificationDeliveryTable;
  plan_schedules: PlanScheduleTable;
  metrics_export_sinks: MetricsExportSinkTable;
  run_metrics_exports: RunMetricsExportTable;
  org_secrets: OrgSecretTable;
}
