// TanStack Query cache keys: one place, so a mutation invalidates exactly what the pages read.
import type { RunsQuery } from "@throng/protocol/run-list";
import type { PlanListQuery } from "@throng/protocol/api";

export const queryKeys = {
  /** GET /api/agents: the Agents page and Home share it. */
  agents: ["agents"] as const,
  /** GET /api/runs: Home's recent runs, a plan page's recent runs and the calculator's run picker. */
  recentRuns: ["runs", "recent"] as const,
  /** One page of GET /api/runs: the filter and paging are the API's query parameters and the key. */
  runsPage: (query: Partial<RunsQuery>) => ["runs", "page", query] as const,
  /** GET /api/plans?shelf=…: one shelf of the plan list (active, archived or all). */
  plans: (shelf: PlanListQuery["shelf"]) => ["plans", shelf] as const,
  /** GET /api/targets: the last capacity estimate per target. */
  targets: ["targets"] as const,
  /** Every GET /api/runs list (Home's recent runs, the Runs pages, Compare's pick list): a run's change invalidates them. */
  runs: ["runs"] as const,
  /** One run's own reads (GET /api/runs/:id and what hangs off it): a change to the run invalidates them all. */
  run: (runId: string) => ["run", runId] as const,
  /** GET /api/runs/:id and its series, read as a plan's baseline to compare later runs with. */
  baselineRun: (runId: string) => ["run", runId, "as-baseline"] as const,
  /** GET /api/runs/:id/errors: the run's error samples, read once more when the run ends (its last seconds' samples). */
  runErrors: (runId: string, ended: boolean) => ["run", runId, "errors", ended] as const,
  /** movement-sync's rooms (`asked`: it is a movement-sync run that started), read live and again once it `ended`. */
  runRooms: (runId: string, asked: boolean, ended: boolean) => ["run", runId, "rooms", asked, ended] as const,
  /** GET /api/runs/:id/distribution: one metric over the run (range null) or a range; `read` asks again on a live run. */
  distribution: (runId: string, metric: string, range: { from: number; to: number } | null, read: number) =>
    ["run", runId, "distribution", metric, range, read] as const,
  /** GET /api/public/reports/:token/distribution: the same through a share link (an ended run: read once). */
  sharedDistribution: (token: string, metric: string, range: { from: number; to: number } | null) =>
    ["shared-report", token, "distribution", metric, range] as const,
  /** GET /api/runs/:id/summary?from=&to=: the run's summary over a zoomed range. */
  runRangeSummary: (runId: string, from: number, to: number) => ["run", runId, "summary", from, to] as const,
  /** GET /api/public/reports/:token/summary?from=&to=: the same through a share link. */
  sharedRangeSummary: (token: string, from: number, to: number) =>
    ["shared-report", token, "summary", from, to] as const,
  /** GET /api/runs/:id/report. */
  runReport: (runId: string) => ["run", runId, "report"] as const,
  /** GET /api/runs/compare?ids=…: the runs in the order picked (the first is the baseline). */
  comparison: (runIds: readonly string[]) => ["compare", runIds] as const,
  /** GET /api/runs/:id/series of each compared run, in the comparison's order. */
  comparedSeries: (runIds: readonly string[]) => ["compare", runIds, "series"] as const,
  /** Every GET /api/plans list, whatever its shelf: archiving, restoring or deleting a plan invalidates them all. */
  planLists: ["plans"] as const,
  /** One plan's own reads (GET /api/plans/:id and what hangs off it): a change to the plan invalidates them all. */
  plan: (planId: string) => ["plan", planId] as const,
  /** GET /api/plans/:id for the editor, one key per read (`read` counts them), so an edit never starts from a cached older version. */
  planToEdit: (planId: string, read: number) => ["plan", planId, "edit", read] as const,
  /** GET /api/plans/:id and GET /api/plans (the names a copy's name must avoid), read afresh for each copy (`read`). */
  planToCopy: (planId: string, read: number) => ["plan", planId, "copy", read] as const,
  /** GET /api/plans/:id/versions. */
  planVersions: (planId: string) => ["plan", planId, "versions"] as const,
  /** GET /api/schedules: the Schedules page; setting, pausing or removing a schedule invalidates it and the plan lists. */
  schedules: ["schedules"] as const,
  /** GET /api/plans/:id/schedule. */
  planSchedule: (planId: string) => ["plan", planId, "schedule"] as const,
  /** GET /api/runs?plan=…&limit=… for a plan's trend; `ended` (its runs that ended) is in the key so another ending reads it again. */
  planTrend: (planId: string, limit: number, ended: number) => ["runs", "plan-trend", planId, limit, ended] as const,
  /** GET /api/scripts: the Scripts page and the plan form's script picker share it. */
  scripts: ["scripts", "list"] as const,
  /** GET /api/scripts/:sha256 (a stored script never changes: its key is its hash). */
  script: (sha256: string) => ["scripts", "one", sha256] as const,
  /** GET /api/targets/:name/estimates: one target's saved estimates, under the targets key so a new estimate refreshes both. */
  targetEstimates: (name: string) => ["targets", name, "estimates"] as const,
  /** GET /api/orgs: the organisations the user belongs to (the nav's switcher). */
  orgs: ["orgs"] as const,
  /** GET /api/members: the Members page, and who created each invitation. */
  members: ["members"] as const,
  /** GET /api/invitations: the pending invitation links. */
  invitations: ["invitations"] as const,
  /** GET /api/secrets: the organisation's secrets by name (never their values). */
  secrets: ["secrets"] as const,
  /** GET /api/tokens: the organisation's API tokens (never their secrets). */
  tokens: ["tokens"] as const,
  /** GET /api/audit: the audit log, newest first. */
  audit: ["audit"] as const,
  /** GET /api/org/settings: the target allow-list and run caps. */
  orgSettings: ["org-settings"] as const,
  /** GET /api/notification-channels. */
  notificationChannels: ["notifications", "channels"] as const,
  /** GET /api/notification-deliveries: the delivery log. */
  notificationDeliveries: ["notifications", "deliveries"] as const,
  /** GET /api/metrics-export: each sink's settings and last delivery. */
  metricsExport: ["metrics-export"] as const,
  /** GET /api/sso: domains, identity providers (never their secrets), Require SSO and session lifetimes. */
  sso: ["sso"] as const,
  /** GET /api/runs/:id/share-links: one report's share links. */
  shareLinks: (runId: string) => ["share-links", runId] as const,
  /** GET /api/public/reports/:token: the report behind a public share link (no session). */
  sharedReport: (token: string) => ["shared-report", token] as const,
  /** GET /api/invitations/preview/:token: the organisation and role an invitation link offers. */
  invitationPreview: (token: string) => ["invitation-preview", token] as const,
};
