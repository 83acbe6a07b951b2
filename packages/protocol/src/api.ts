import { z } from "zod";
import { PlanSpec } from "./plan";
import { AgentCapabilities, AgentCapacity, AgentRole, HostInfo } from "./agent";
import { Role } from "./orgs";
import { FieldError } from "./errors";
import { VerdictOutcome } from "./report";
import { NextScheduledRun } from "./plan-schedule";

/** The largest JSON body the API reads (a script upload has its own): a plan larger than this can never be saved. */
export const MAX_REQUEST_BODY_BYTES = 1 << 20;

/** GET /api/me: the signed-in user and the organisation every request is scoped to. */
export const Me = z.object({
  user: z.object({ id: z.string(), email: z.string(), name: z.string() }),
  organization: z.object({ id: z.string(), name: z.string(), slug: z.string() }),
  /** The caller's role in that organisation (for an API token: capped by its scope). */
  role: Role.optional(),
});
export type Me = z.infer<typeof Me>;

/** POST /api/enrolment-tokens body. */
export const CreateEnrolmentToken = z.object({
  expiresInMinutes: z
    .number()
    .int()
    .min(1, "must be at least 1 minute")
    .max(7 * 24 * 60, "must be at most 7 days")
    .default(60),
  /** A single-use token enrols one agent and is spent. */
  singleUse: z.boolean().default(false),
});
export type CreateEnrolmentToken = z.infer<typeof CreateEnrolmentToken>;

/** POST /api/enrolment-tokens answer: the token is shown once, with the command that uses it. */
export const EnrolmentTokenCreated = z.object({
  token: z.string(),
  expiresAt: z.string(),
  commands: z.object({ node: z.string(), npx: z.string() }),
});
export type EnrolmentTokenCreated = z.infer<typeof EnrolmentTokenCreated>;

export const AgentStatus = z.enum(["online", "busy", "offline"]);
export type AgentStatus = z.infer<typeof AgentStatus>;

/** GET /api/agents items. */
export const AgentView = HostInfo.extend({
  id: z.string().uuid(),
  version: z.string(),
  status: AgentStatus,
  labels: z.record(z.string(), z.string()),
  lastSeenAt: z.string().nullable(),
  currentRunId: z.string().uuid().nullable(),
  ip: z.string().nullable(),
  /** "watch": a watcher of the server under test (never given load); omitted in older answers: "load". */
  role: AgentRole.optional(),
  /** What the agent said it can hold in its last hello; omitted when it did not say (an older agent, a watcher). */
  capacity: AgentCapacity.optional(),
  /** What its owner lets it run (scripts, targets), from its last hello; omitted when it did not say. */
  capabilities: AgentCapabilities.optional(),
});
export type AgentView = z.infer<typeof AgentView>;

/** POST /api/plans and PUT /api/plans/:id body. */
export const SavePlan = PlanSpec;
export type SavePlan = z.infer<typeof SavePlan>;

/** PUT /api/plans/:id body: the whole new plan, and the version it was edited from (to refuse lost updates). */
export const UpdatePlan = z.object({
  version: z
    .number()
    .int()
    .min(1, "send the version you edited (PlanView.version)")
    .max(2_147_483_647, "send the version you edited (PlanView.version)"),
  spec: PlanSpec,
});
export type UpdatePlan = z.infer<typeof UpdatePlan>;

/** GET /api/plans/:id/versions items, newest first. */
export const PlanVersionView = z.object({ version: z.number().int(), spec: PlanSpec, createdAt: z.string() });
export type PlanVersionView = z.infer<typeof PlanVersionView>;

/** GET /api/plans items and single plan. */
export const PlanView = z.object({
  id: z.string().uuid(),
  name: z.string(),
  /** Starts at 1; each edit adds one. Runs record the version they ran. */
  version: z.number().int().min(1).optional(),
  spec: PlanSpec,
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Set while the plan is archived: hidden from the plan list by default, its runs untouched. */
  archivedAt: z.string().optional(),
  /**
   * What would stop a run of the plan from starting as the organisation is set up now (a target off its allow-list,
   * more clients than its cap), by field: the plan saves, and these say what to fix before Start or a schedule.
   */
  warnings: z.array(FieldError).optional(),
  /** The finished run of this plan every later run is compared with (PUT /api/plans/:id/baseline); null when none is pinned. */
  baselineRunId: z.string().uuid().nullable().default(null),
  /** The plan's most recent run that ended, with its verdict's outcome (null before the first ends), for the plan list. */
  lastRun: z
    .object({
      id: z.string().uuid(),
      status: z.string(),
      outcome: VerdictOutcome.nullable(),
      endedAt: z.string().nullable(),
    })
    .nullable()
    .default(null),
  /** When the plan's schedule fires next (null when it has none), for the plan list. */
  nextScheduledRun: NextScheduledRun.nullable().default(null),
});
export type PlanView = z.infer<typeof PlanView>;

/** PUT /api/plans/:id/baseline body: the run of this plan, finished, to pin as the plan's baseline. */
export const PinBaseline = z.object({
  runId: z.string({ error: "give the id of a finished run of this plan (runId)" }).uuid("runId must be a run's UUID"),
});
export type PinBaseline = z.infer<typeof PinBaseline>;

/** GET /api/plans query: which plans to list (archived ones only when asked for). */
export const PlanListQuery = z.object({
  shelf: z.enum(["active", "archived", "all"], { message: "shelf is active, archived or all" }).default("active"),
});
export type PlanListQuery = z.infer<typeof PlanListQuery>;

/**
 * PUT /api/plans/by-name body (`throng run --plan-name`): saves the plan as a new version of the active plan with
 * that name, or as a new plan when there is none, so a CI job's runs stay on one plan.
 */
export const SavePlanByName = z.object({
  name: z.string().trim().min(1, "name the plan").max(120, "a plan name is at most 120 characters"),
  spec: PlanSpec,
});
export type SavePlanByName = z.infer<typeof SavePlanByName>;

/** PUT /api/agents/:id/labels body: the agent's whole label set. */
export const AgentLabels = z.object({
  labels: z.record(
    z.string().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/i, "label names are letters, digits, . _ - (max 63)"),
    z.string().max(200, "label values are at most 200 characters"),
  ),
});
export type AgentLabels = z.infer<typeof AgentLabels>;

/** GET /health. */
export const Health = z.object({
  status: z.enum(["ok", "degraded"]),
  database: z.enum(["ok", "down"]),
  redis: z.enum(["ok", "down"]),
  version: z.string(),
});
export type Health = z.infer<typeof Health>;

/** Route params carrying one id. */
export const IdParams = z.object({ id: z.string().uuid("must be a UUID") });
export type IdParams = z.infer<typeof IdParams>;

/** Path parameter of a secret link (an invitation, a shared report): the token itself, never a database id. */
export const TokenParams = z.object({ token: z.string().min(1).max(200) });
export type TokenParams = z.infer<typeof TokenParams>;
