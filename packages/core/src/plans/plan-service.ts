import { parseOrThrow, ThrongError } from "@throng/protocol/errors";
import { PlanSpec } from "@throng/protocol/plan";
import type { PlanView } from "@throng/protocol/api";
import type { PlanRepo, PlanRow } from "@throng/db/repos/plans";
import { authorize, type Actor } from "../orgs/permissions";
import { assertSlosApply } from "../capacity/slo";

export function toPlanView(row: PlanRow): PlanView {
  return {
    id: row.id, name: row.name, spec: PlanSpec.parse(row.spec),
    createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString(),
  };
}

/** Saving and reading plans; input is validated with the shared PlanSpec schema. */
export function createPlanService(deps: { plans: PlanRepo }) {
  const { plans } = deps;
  return {
    async create(actor: Actor, input: unknown): Promise<PlanView> {
      authorize(actor, "plan.write");
      const spec = parseOrThrow(PlanSpec, input, "plan");
      assertSlosApply(spec);
      return toPlanView(await plans.insert(actor.orgId, { id: crypto.randomUUID(), name: spec.name, spec }));
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
