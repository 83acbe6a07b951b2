import type { Db } from "@throng/db/client";
import type { Repos } from "@throng/db/repos";
import type { AgentHost } from "@throng/db/repos/fleet";
import type { PlanSpec } from "@throng/protocol/plan";

/** A new organisation written straight to the database (its slug is its id, so each is unique); returns its id. */
export async function seedOrg(db: Db): Promise<string> {
  const orgId = crypto.randomUUID();
  await db
    .insertInto("organization")
    .values({ id: orgId, name: "o", slug: orgId, logo: null, createdAt: new Date(), metadata: null })
    .execute();
  return orgId;
}

/** An enrolled agent of the organisation on a one-core rig unless `host` says otherwise; returns its id. */
export async function seedAgent(repos: Repos, orgId: string, host: Partial<AgentHost> = {}): Promise<string> {
  const id = crypto.randomUUID();
  await repos.fleet.insertAgent(orgId, {
    id,
    secretHash: "x",
    hostname: "rig",
    os: "linux",
    arch: "x64",
    cores: 1,
    memoryBytes: 1,
    version: "0.1.0",
    labels: {},
    ip: null,
    ...host,
  });
  return id;
}

/** `count` enrolled agents of the organisation, written straight to the database; returns their ids. */
export async function seedAgents(repos: Repos, orgId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(await seedAgent(repos, orgId));
  return ids;
}

/**
 * A running run of `spec` in a new organisation, from a plan of the same spec, its two shards held by two enrolled
 * agents: written straight to the database.
 */
export async function seedRunningRun(db: Db, repos: Repos, spec: PlanSpec) {
  const orgId = await seedOrg(db);
  const agentIds = await seedAgents(repos, orgId, 2);
  const planId = crypto.randomUUID();
  await repos.plans.insert(orgId, { id: planId, name: spec.name, spec });
  const runId = crypto.randomUUID();
  await repos.runs.insert(orgId, { id: runId, planId, spec, status: "running" });
  await repos.runs.insertShards(
    orgId,
    runId,
    agentIds.map((agentId, shardIndex) => ({ agentId, shardIndex, clients: 1 })),
  );
  return { orgId, runId, agentIds: agentIds as [string, string] };
}
