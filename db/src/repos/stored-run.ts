import type { PlanSpec } from "@throng/protocol/plan";
import type { Db } from "../client";
import type { Repos } from "../repos";

/** Tests: an organisation of its own with one plan of `spec` and one run of it (running, unless `status` says). */
export async function storedRun(
  db: Db,
  repos: Repos,
  spec: PlanSpec,
  status: "queued" | "running" = "running",
): Promise<{ orgId: string; planId: string; runId: string }> {
  const orgId = crypto.randomUUID();
  await db
    .insertInto("organization")
    .values({ id: orgId, name: "o", slug: orgId, logo: null, createdAt: new Date(), metadata: null })
    .execute();
  const planId = crypto.randomUUID();
  const runId = crypto.randomUUID();
  await repos.plans.insert(orgId, { id: planId, name: "p", spec });
  await repos.runs.insert(orgId, { id: runId, planId, spec, status });
  return { orgId, planId, runId };
}
