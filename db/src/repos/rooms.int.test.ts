import { describe, expect, it } from "vitest";
import { PlanSpec } from "@throng/protocol/plan";
import { planInput } from "@throng/protocol/plan-spec.test-support";
import type { RoomsReport } from "@throng/protocol/rooms";
import { useTestDatabase } from "../vitest-database";
import { storedRun } from "./stored-run";

const { db, repos } = await useTestDatabase({ max: 4 });

const spec = PlanSpec.parse(
  planInput({ scenario: { kind: "movement-sync", roomSize: 4, updateHz: 20 }, load: { clients: 8, durationSec: 1 } }),
);

async function runWithAgent() {
  const { orgId, runId } = await storedRun(db, repos, spec);
  const agentId = crypto.randomUUID();
  await db
    .insertInto("agents")
    .values({
      id: agentId,
      org_id: orgId,
      secret_hash: "x",
      hostname: "rig",
      os: "linux",
      arch: "x64",
      cores: 2,
      memory_bytes: 1,
      version: "0",
      labels: "{}",
      open_file_limit: null,
      clients_per_engine: null,
      max_engines: null,
      capabilities: null,
    })
    .execute();
  return { orgId, runId, agentId };
}

const report = (received: number): RoomsReport => ({
  rooms: 1,
  worst: [{ room: 0, members: 4, expected: 120, received, p50Us: 900, p99Us: 2_000, maxUs: 2_100 }],
  spread: { reachMin: received / 120, reachMax: received / 120, p99MinUs: 2_000, p99MaxUs: 2_000 },
});

describe("an agent's rooms report per run (PROTOCOL.md §5.3)", () => {
  it("keeps the agent's newest by seq: a re-sent or late older snapshot never replaces it, and another org reads none", async () => {
    const { orgId, runId, agentId } = await runWithAgent();
    await repos.rooms.keep(orgId, runId, agentId, 5, report(100));
    await repos.rooms.keep(orgId, runId, agentId, 3, report(60));
    await repos.rooms.keep(orgId, runId, agentId, 5, report(70));
    expect(await repos.rooms.listRun(orgId, runId)).toEqual([report(100)]);
    await repos.rooms.keep(orgId, runId, agentId, 6, report(110));
    expect(await repos.rooms.listRun(orgId, runId)).toEqual([report(110)]);
    expect(await repos.rooms.listRun(crypto.randomUUID(), runId)).toEqual([]);
  });
});
