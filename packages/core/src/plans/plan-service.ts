import { parseOrThrow, ThrongError } from "@throng/protocol/errors";
import { PlanSpec } from "@throng/protocol/plan";
import type { PlanView } from "@throng/protocol/api";
import type { PlanRepo, PlanRow } from "@throng/db/repos/plans";

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
    async create(orgId: string, input: unknown): Promise<PlanView> {
      const spec = parseOrThrow(PlanSpec, input, "plan");
      return toPlanView(await plans.insert(orgId, { id: crypto.randomUUID(), name: spec.name, spec }));
    },
    async get(orgId: string, id: string): Promise<PlanView> {
      const row = await plans.get(orgId, id);
      if (!row) throw new ThrongError("not_found", `No plan ${id} in this organisation`);
      return toPlanView(row);
    },
    async list(orgId: string): Promise<PlanView[]> {
      return (await plans.list(orgId)).map(toPlanView);
    },
  };
}
export type PlanService = ReturnType<typeof createPlanService>;
