import { parseOrThrow, ThrongError } from "@throng/protocol/errors";
import type { PlanSpec } from "@throng/protocol/plan";
import {
  type PinBaseline,
  PlanListQuery,
  type SavePlanByName,
  type UpdatePlan,
  type AgentView,
  type PlanVersionView,
  type PlanView,
} from "@throng/protocol/api";
import type { LastRunRow, PlanRepo, PlanRow } from "@throng/db/repos/plans";
import { VerdictOutcome } from "@throng/protocol/report";
import type { NextScheduledRun } from "@throng/protocol/plan-schedule";
import type { RunRepo } from "@throng/db/repos/runs";
import type { SecretRepo } from "@throng/db/repos/secrets";
import { assertPlanSecretsExist } from "../orgs/org-secrets";
import { authorize, type Actor } from "../orgs/permissions";
import { assertPlanScriptStored } from "../scripts/plan-scripts";
import { assertPlanCodecs } from "./plan-codecs";
import { settingsProblems } from "../orgs/target-policy";
import type { OrgSettings } from "@throng/protocol/orgs";
import type { ScriptService } from "../scripts/script-service";
import { baselineRefusal } from "./plan-baseline";
import { agentProblems } from "../runs/agent-selection";

function lastRunView(row: LastRunRow | undefined): PlanView["lastRun"] {
  if (!row) return null;
  const outcome = VerdictOutcome.safeParse(row.outcome);
  return {
    id: row.id,
    status: row.status,
    outcome: outcome.success ? outcome.data : null,
    endedAt: row.endedAt?.toISOString() ?? null,
  };
}

export function toPlanView(row: PlanRow, lastRun?: LastRunRow, nextScheduledRun?: NextScheduledRun): PlanView {
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    spec: row.spec,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    ...(row.archivedAt ? { archivedAt: row.archivedAt.toISOString() } : {}),
    baselineRunId: row.baselineRunId,
    lastRun: lastRunView(lastRun),
    nextScheduledRun: nextScheduledRun ?? null,
  };
}

/** Saving and reading plans; input is validated with the shared PlanSpec schema. */
/**
 * `settings`: the organisation's allow-list and caps as they are now; a plan that breaks them still saves (an admin
 * may be about to change them), and its view carries `warnings` saying what would stop a run.
 */
/**
 * `agents`: the organisation's fleet as it is now; a plan that no connected agent may run (its owner did not allow
 * scripts, or its target) is warned about as well.
 */
export function createPlanService(deps: {
  plans: PlanRepo;
  runs: Pick<RunRepo, "get">;
  scripts: Pick<ScriptService, "stored">;
  secrets: Pick<SecretRepo, "existing">;
  settings: (orgId: string) => Promise<OrgSettings>;
  agents?: (orgId: string) => Promise<AgentView[]>;
  /** Each scheduled plan's next firing, by plan id (the schedule service's `nextByPlan`). */
  nextScheduledRuns?: (orgId: string) => Promise<Map<string, NextScheduledRun>>;
}) {
  const { plans, scripts } = deps;
  /** The views of `rows`, each with what would stop it from starting under the org's settings and with its agents. */
  const viewsOf = async (orgId: string, rows: PlanRow[]): Promise<PlanView[]> => {
    const [settings, fleet, lastRuns, schedules] = await Promise.all([
      deps.settings(orgId),
      deps.agents?.(orgId) ?? [],
      plans.lastRuns(
        orgId,
        rows.map((row) => row.id),
      ),
      deps.nextScheduledRuns?.(orgId) ?? new Map<string, NextScheduledRun>(),
    ]);
    const lastRunOf = new Map(lastRuns.map((run) => [run.planId, run]));
    return rows.map((row) => {
      const view = toPlanView(row, lastRunOf.get(row.id), schedules.get(row.id));
      const warnings = [...settingsProblems(view.spec, settings), ...agentProblems(view.spec, fleet)];
      return warnings.length ? { ...view, warnings } : view;
    });
  };
  const viewOf = async (orgId: string, row: PlanRow): Promise<PlanView> => (await viewsOf(orgId, [row]))[0]!;
  /** What saving checks beyond the schema (which refuses SLOs the scenario never measures): its codecs, a script the org has uploaded, secrets it has. */
  const checkSpec = async (actor: Actor, spec: PlanSpec) => {
    assertPlanCodecs(spec);
    await assertPlanScriptStored(spec, (sha256) => scripts.stored(actor.orgId, sha256));
    await assertPlanSecretsExist(deps.secrets, actor.orgId, spec, "save");
  };
  return {
    async create(actor: Actor, spec: PlanSpec): Promise<PlanView> {
      authorize(actor, "plan.write");
      await checkSpec(actor, spec);
      return viewOf(actor.orgId, await plans.insert(actor.orgId, { id: crypto.randomUUID(), name: spec.name, spec }));
    },
    /** Saves a new version; refuses when someone saved another version since `version` was loaded. */
    async update(actor: Actor, id: string, input: UpdatePlan): Promise<PlanView> {
      authorize(actor, "plan.write");
      const { version, spec } = input;
      await checkSpec(actor, spec);
      const row = await plans.update(actor.orgId, id, version, { name: spec.name, spec });
      if (row) return viewOf(actor.orgId, row);
      const current = await plans.get(actor.orgId, id);
      if (!current) throw new ThrongError("not_found", `No plan ${id} in this organisation`);
      throw new ThrongError(
        "conflict",
        `The plan was saved meanwhile (now version ${current.version}, you edited ${version}): reload it and apply your change again`,
      );
    },
    async versions(actor: Actor, id: string): Promise<PlanVersionView[]> {
      authorize(actor, "plan.read");
      if (!(await plans.get(actor.orgId, id))) throw new ThrongError("not_found", `No plan ${id} in this organisation`);
      return (await plans.versions(actor.orgId, id)).map((v) => ({
        version: v.version,
        spec: v.spec,
        createdAt: v.createdAt.toISOString(),
      }));
    },
    async get(actor: Actor, id: string): Promise<PlanView> {
      authorize(actor, "plan.read");
      const row = await plans.get(actor.orgId, id);
      if (!row) throw new ThrongError("not_found", `No plan ${id} in this organisation`);
      return viewOf(actor.orgId, row);
    },
    /** The active plans, or with `shelf` the archived ones or both. */
    async list(actor: Actor, query: unknown = {}): Promise<PlanView[]> {
      authorize(actor, "plan.read");
      const { shelf } = parseOrThrow(PlanListQuery, query, "plan list query");
      return viewsOf(actor.orgId, await plans.list(actor.orgId, shelf));
    },

    /**
     * `throng run --plan-name`: a new version of the active plan with that name, or a new plan when there is none.
     * `created` says which. Two saves racing on one name: the loser retries once on the version the winner wrote.
     */
    async saveByName(actor: Actor, input: SavePlanByName): Promise<{ plan: PlanView; created: boolean }> {
      authorize(actor, "plan.write");
      const { name, spec: given } = input;
      const spec = { ...given, name };
      await checkSpec(actor, spec);
      for (let attempt = 0; attempt < 2; attempt++) {
        const current = await plans.findActiveByName(actor.orgId, name);
        if (!current)
          return {
            plan: await viewOf(actor.orgId, await plans.insert(actor.orgId, { id: crypto.randomUUID(), name, spec })),
            created: true,
          };
        const row = await plans.update(actor.orgId, current.id, current.version, { name, spec });
        if (row) return { plan: await viewOf(actor.orgId, row), created: false };
      }
      throw new ThrongError("conflict", `The plan "${name}" is being saved by someone else right now: try again`);
    },

    /** Hides a plan from the list (true) or brings it back (false); its runs and versions stay as they are. */
    async archive(actor: Actor, id: string, archived: boolean): Promise<PlanView> {
      authorize(actor, "plan.write");
      const row = await plans.setArchived(actor.orgId, id, archived ? new Date() : null);
      if (!row) throw new ThrongError("not_found", `No plan ${id} in this organisation`);
      return viewOf(actor.orgId, row);
    },

    /** Pins one of the plan's own finished runs as the baseline later runs are compared with (replacing any other). */
    async pinBaseline(actor: Actor, id: string, input: PinBaseline): Promise<PlanView> {
      authorize(actor, "plan.write");
      const { runId } = input;
      if (!(await plans.get(actor.orgId, id))) throw new ThrongError("not_found", `No plan ${id} in this organisation`);
      const refusal = baselineRefusal(id, runId, await deps.runs.get(actor.orgId, runId));
      if (refusal) throw refusal;
      const row = await plans.setBaseline(actor.orgId, id, runId);
      if (!row) throw new ThrongError("not_found", `No plan ${id} in this organisation`);
      return viewOf(actor.orgId, row);
    },

    /** Unpins the plan's baseline; later runs are compared with nothing until another is pinned. */
    async unpinBaseline(actor: Actor, id: string): Promise<PlanView> {
      authorize(actor, "plan.write");
      const row = await plans.setBaseline(actor.orgId, id, null);
      if (!row) throw new ThrongError("not_found", `No plan ${id} in this organisation`);
      return viewOf(actor.orgId, row);
    },

    /** Deletes a plan that never ran; one with runs is archived instead, so its runs keep their plan. */
    async remove(actor: Actor, id: string): Promise<void> {
      authorize(actor, "plan.write");
      if (await plans.deleteWithoutRuns(actor.orgId, id)) return;
      if (!(await plans.get(actor.orgId, id))) throw new ThrongError("not_found", `No plan ${id} in this organisation`);
      const runs = await plans.countRuns(actor.orgId, id);
      throw new ThrongError(
        "conflict",
        `The plan has ${runs} run${runs === 1 ? "" : "s"}, which would go with it: archive it instead (archived plans are hidden from the list, their runs kept)`,
      );
    },
  };
}
export type PlanService = ReturnType<typeof createPlanService>;
