import { describe, expect, it } from "vitest";
import { useTestDatabase } from "@throng/db/vitest-database";
import { createAuditLog } from "../orgs/audit";
import { seedAgents, seedOrg } from "../db-seed.test-support";
import { createFleetService } from "./fleet-service";

const { db, repos } = await useTestDatabase({ max: 3 });

/** An organisation of its own with `count` agents. */
async function orgWithAgents(count: number) {
  const orgId = await seedOrg(db);
  return { orgId, ids: await seedAgents(repos, orgId, count) };
}

describe("fleet heartbeats (real PostgreSQL)", () => {
  it("beats of agents in two organisations at one moment are written together; each resolves with its agent seen", async () => {
    const now = 1_800_000_000_000;
    const fleet = createFleetService({
      fleet: repos.fleet,
      bus: { sequence: async () => 1, publish: async () => undefined },
      clock: { now: () => now },
      audit: createAuditLog({ security: repos.security }),
      config: { apiPublicUrl: "http://127.0.0.1", heartbeatIntervalMs: 5_000 },
    });
    const [a, b] = [await orgWithAgents(3), await orgWithAgents(2)];
    await Promise.all([...a.ids.map((id) => fleet.heard(a.orgId, id)), ...b.ids.map((id) => fleet.heard(b.orgId, id))]);
    for (const { orgId, ids } of [a, b]) {
      const agents = await fleet.listAgents(orgId);
      expect(agents.map((agent) => agent.id).sort()).toEqual([...ids].sort());
      for (const agent of agents)
        expect(agent).toMatchObject({ status: "online", lastSeenAt: new Date(now).toISOString() });
    }
  });
});
