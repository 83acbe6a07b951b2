import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@throng/db/client";
import { createRepos, type Repos } from "@throng/db/repos";
import { createTestDatabase } from "@throng/db/testing";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { encodeValues } from "./histogram";
import { createIngestService } from "./ingest";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;
let repos: Repos;
beforeAll(async () => {
  database = await createTestDatabase();
  db = createDb(database.url, { max: 10 });
  repos = createRepos(db);
});
afterAll(async () => {
  await db?.destroy();
  await database?.drop();
});

const spec = {
  name: "p", target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
  scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 }, load: { clients: 40, durationSec: 1, rampUpSec: 0 },
};

/** An org, a run and `agents` agents each holding a shard of it, written straight to the database. */
async function seedRun(agents: number) {
  const orgId = crypto.randomUUID();
  await db.insertInto("organization").values({ id: orgId, name: "o", slug: orgId, logo: null, createdAt: new Date(), metadata: null }).execute();
  const agentIds = Array.from({ length: agents }, () => crypto.randomUUID());
  for (const id of agentIds) {
    await repos.fleet.insertAgent(orgId, { id, secretHash: "x", hostname: "rig", os: "linux", arch: "x64", cores: 1, memoryBytes: 1, version: "0.1.0", labels: {}, ip: null });
  }
  const planId = crypto.randomUUID();
  await repos.plans.insert(orgId, { id: planId, name: "p", spec });
  const runId = crypto.randomUUID();
  await repos.runs.insert(orgId, { id: runId, planId, spec, status: "running" });
  await repos.runs.insertShards(orgId, runId, agentIds.map((agentId, shardIndex) => ({ agentId, shardIndex, clients: 1 })));
  return { orgId, runId, agentIds };
}

function snapshot(runId: string, intervalStart: number): MetricSnapshot {
  return {
    runId, seq: 0, intervalStart, intervalMs: 1000, clients: 1,
    counters: { connectionsOpen: 1, connectionsOpened: 0, connectionsFailed: 0, connectionsClosed: 0, messagesSent: 5, messagesReceived: 5, bytesSent: 320, bytesReceived: 240, errors: 0 },
    histograms: { rttUs: encodeValues([500, 600, 700, 800, 900]) },
    health: { cpuPercent: 1, eventLoopP99Ms: 0, rssBytes: 1 },
  };
}

describe("metric ingest (real PostgreSQL)", () => {
  it("every agent's snapshot of a second ends up in its roll-up when they all arrive at once", async () => {
    const { orgId, runId, agentIds } = await seedRun(40);
    const ingest = createIngestService({ repos, bus: { publish: async () => undefined, sequence: async () => 1 } });
    const second = 1_700_000_000;
    // Concurrent ingests re-merge the same second; a merge over fewer snapshots must not be written last.
    await Promise.all(agentIds.map((agentId) => ingest.ingest(orgId, agentId, snapshot(runId, second * 1000))));
    const [point] = (await repos.snapshots.listSeconds(orgId, runId)) as { agents: number; messagesSentPerSec: number }[];
    expect(point).toMatchObject({ agents: 40, messagesSentPerSec: 200 });
  });
});
