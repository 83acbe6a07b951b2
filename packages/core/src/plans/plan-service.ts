import { parseOrThrow, ThrongError } from "@throng/protocol/errors";
import { PlanSpec } from "@throng/protocol/plan";
import { UpdatePlan, type PlanVersionView, type PlanView } from "@throng/protocol/api";
import type { PlanRepo, PlanRow } from "@throng/db/repos/plans";
import { authorize, type Actor } from "../orgs/permissions";
import { assertSlosApply } from "../capacity/slo";
import { assertPlanScriptStored } from "../scripts/plan-scripts";
import type { ScriptService } from "../scripts/script-service";

export function toPlanView(row: PlanRow): PlanView {
  return {
    id: row.id, name: row.name, version: row.version, spec: PlanSpec.parse(row.spec),
    createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString(),
  };
}

/** Saving and reading plans; input is validated with the shared PlanSpec schema. */
export function createPlanService(deps: { plans: PlanRepo; scripts: Pick<ScriptService, "stored"> }) {
  const { plans, scripts } = deps;
  /** What saving checks beyond the schema: SLOs the scenario measures, and a script the org has uploaded. */
  const checkSpec = async (actor: Actor, spec: PlanSpec) => {
    assertSlosApply(spec);
    await assertPlanScriptStored(spec, (sha256) => scripts.stored(actor.orgId, sha256));
  };
  return {
    async create(actor: Actor, input: unknown): Promise<PlanView> {
      authorize(actor, "plan.write");
      const spec = parseOrThrow(PlanSpec, input, "plan");
      await checkSpec(actor, spec);
      return toPlanView(await plans.insert(actor.orgId, { id: crypto.randomUUID(), name: spec.name, spec }));
    },
    /** Saves a new version; refuses when someone saved another version since `version` was loaded. */
    async update(actor: Actor, id: string, input: unknown): Promise<PlanView> {
      authorize(actor, "plan.write");
      const { version, spec } = parseOrThrow(UpdatePlan, input, "plan");
      await checkSpec(actor, spec);
      const row = await plans.update(actor.orgId, id, version, { name: spec.name, spec });
      if (row) return toPlanView(row);
      const current = await plans.get(actor.orgId, id);
      if (!current) throw new ThrongError("not_found", `No plan ${id} in this organisation`);
      throw new ThrongError("conflict", `The plan was saved meanwhile (now version ${current.version}, you edited ${version}): reload it and apply your change again`);
    },
    async versions(actor: Actor, id: string): Promise<PlanVersionView[]> {
      authorize(actor, "plan.read");
      if (!(await plans.get(actor.orgId, id))) throw new ThrongError("not_found", `No plan ${id} in this organisation`);
      return (await plans.versions(actor.orgId, id)).map((v) => ({ version: v.version, spec: PlanSpec.parse(v.spec), createdAt: v.createdAt.toISOString() }));
    },
    async get(actor: Actor, id: string): Promise<PlanView> {
      authorize(actor, "plan.read");
      const row = await plans.get(actor.orgId, id);
      if (!row) throw new ThrongError("not_found", `No plan ${id} in this organisation`);
      return toPlanView(row);
    },
    async list(actor: Actor): Promise<PlanView[]> {
      authorize(actor, "plan.read");
      return (await plans.list(actor.orgId)).map(toPlanView);
    },
  };
}
export type PlanService = ReturnType<typeof createPlanService>;
