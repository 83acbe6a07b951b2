import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@throng/db/client";
import { createRepos, type Repos } from "@throng/db/repos";
import { createTestDatabase } from "@throng/db/testing";
import type { LiveEnvelope } from "@throng/protocol/run";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import type { Bus } from "../ports";
import { encodeValues } from "./histogram";
import { createIngestService } from "./ingest";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;
let repos: Repos;
beforeAll(async () => {
  database = await createTestDatabase();
  db = createDb(database.url, { max: 5 });
  repos = createRepos(db);
});
afterAll(async () => {
  await db?.destroy();
  await database?.drop();
});

const spec = {
  name: "p", target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
  scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 }, load: { clients: 2, durationSec: 1, rampUpSec: 0 },
};

/** An org, a running run and two agents holding its shards, written straight to the database. */
async function seedRun() {
  const orgId = crypto.randomUUID();
  await db.insertInto("organization").values({ id: orgId, name: "o", slug: orgId, logo: null, createdAt: new Date(), metadata: null }).execute();
  const agentIds = [crypto.randomUUID(), crypto.randomUUID()];
  for (const id of agentIds) {
    await repos.fleet.insertAgent(orgId, { id, secretHash: "x", hostname: "rig", os: "linux", arch: "x64", cores: 1, memoryBytes: 1, version: "0.1.0", labels: {}, ip: null });
  }
  const planId = crypto.randomUUID();
  await repos.plans.insert(orgId, { id: planId, name: "p", spec });
  const runId = crypto.randomUUID();
  await repos.runs.insert(orgId, { id: runId, planId, spec, status: "running" });
  await repos.runs.insertShards(orgId, runId, agentIds.map((agentId, shardIndex) => ({ agentId, shardIndex, clients: 1 })));
  return { orgId, runId, agentIds: agentIds as [string, string] };
}

function snapshot(runId: string, intervalStart: number): MetricSnapshot {
  return {
    runId, seq: 0, intervalStart, intervalMs: 1000, clients: 1,
    counters: { connectionsOpen: 1, connectionsOpened: 0, connectionsFailed: 0, connectionsClosed: 0, messagesSent: 5, messagesReceived: 5, bytesSent: 320, bytesReceived: 240, errors: 0 },
    histograms: { rttUs: encodeValues([500, 600, 700]) },
    health: { cpuPercent: 1, eventLoopP99Ms: 0, rssBytes: 1 },
  };
}

describe("metric ingest (real PostgreSQL)", () => {
  it("two agents' snapshots of one second ingested at once: the last live point and the stored roll-up hold both", async () => {
    const { orgId, runId, agentIds } = await seedRun();
    const published: LiveEnvelope[] = [];
    let calls = 0;
    // The first ingest's publish is slow (a Redis hiccup); the second ingest merges meanwhile.
    const bus: Bus = {
      sequence: async () => published.length + 1,
      publish: async (_channel, message) => {
        if (calls++ === 0) await new Promise((resolve) => setTimeout(resolve, 300));
        published.push(message as LiveEnvelope);
      },
    };
    const ingest = createIngestService({ repos, bus });
    const second = 1_700_000_000;
    const first = ingest.ingest(orgId, agentIds[0], snapshot(runId, second * 1000));
    await new Promise((resolve) => setTimeout(resolve, 100)); // the first is in its publish by now
    await Promise.all([first, ingest.ingest(orgId, agentIds[1], snapshot(runId, second * 1000))]);

    const points = published.flatMap((e) => (e.message.type === "point" ? [e.message.point] : []));
    expect(points.at(-1)).toMatchObject({ t: second, agents: 2 });
    expect(await repos.snapshots.listSeconds(orgId, runId)).toMatchObject([{ t: second, agents: 2 }]);
  });

  it("coalesces the re-merges of one second: two agents' snapshots within the window cost one merge, and the roll-up holds both", async () => {
    const { orgId, runId, agentIds } = await seedRun();
    const published: LiveEnvelope[] = [];
    const bus: Bus = { sequence: async () => published.length + 1, publish: async (_channel, message) => void published.push(message as LiveEnvelope) };
    const ingest = createIngestService({ repos, bus, coalesceMs: 100 });
    const second = 1_700_000_100;
    expect(await ingest.ingest(orgId, agentIds[0], snapshot(runId, second * 1000))).toBe("stored");
    expect(await ingest.ingest(orgId, agentIds[1], snapshot(runId, second * 1000))).toBe("stored");
    expect(published).toHaveLength(0); // acknowledged at once, merged once the window closes
    await ingest.flush();
    expect(published).toHaveLength(1);
    expect(published[0]?.message).toMatchObject({ type: "point", point: { t: second, agents: 2 } });
    expect(await repos.snapshots.listSeconds(orgId, runId)).toMatchObject([{ t: second, agents: 2 }]);
  });
});
