import { describe, expect, it, vi } from "vitest";
import { createDb } from "@throng/db/client";
import { createRepos } from "@throng/db/repos";
import { useTestDatabase } from "@throng/db/vitest-database";
import type { LiveEnvelope } from "@throng/protocol/run";
import type { MetricSnapshot, SeriesPoint } from "@throng/protocol/snapshot";
import { seedRunningRun } from "../db-seed.test-support";
import type { Bus } from "../ports";
import { encodeValues } from "./histogram";
import { createIngestService } from "./ingest";
import { createSnapshotBatcher } from "./snapshot-batch";
import { summariseRun } from "@throng/wire/run-summary";
import { PlanSpec } from "@throng/protocol/plan";
import { planInput } from "@throng/protocol/plan-spec.test-support";

const { db, repos } = await useTestDatabase({ max: 5 });

const spec = PlanSpec.parse(planInput({ load: { clients: 2, durationSec: 1, rampUpSec: 0 } }));
/** An org, a running run and two agents holding its shards, written straight to the database. */
const seedRun = () => seedRunningRun(db, repos, spec);

function snapshot(runId: string, intervalStart: number, seq = 0): MetricSnapshot {
  return {
    runId,
    seq,
    intervalStart,
    intervalMs: 1000,
    clients: 1,
    counters: {
      connectionsOpen: 1,
      connectionsOpened: 0,
      connectionsFailed: 0,
      connectionsClosed: 0,
      messagesSent: 5,
      messagesReceived: 5,
      bytesSent: 320,
      bytesReceived: 240,
      errors: 0,
    },
    histograms: { rttUs: encodeValues([500, 600, 700]) },
    health: { cpuPercent: 1, eventLoopP99Ms: 0, rssBytes: 1 },
  };
}

/** A stored second of one client with nothing in it but one round trip, as the snapshot batcher takes it. */
const bareRow = (agentId: string, seq: number, second: number) => ({
  agentId,
  seq,
  second,
  intervalMs: 1000,
  clients: 1,
  counters: {},
  rttHist: encodeValues([1]),
  histograms: {},
  step: null,
  health: {},
});

/** A bus that keeps what it is given, in order, numbering each message after the last. */
function recordingBus(): { bus: Bus; published: LiveEnvelope[] } {
  const published: LiveEnvelope[] = [];
  const bus: Bus = {
    sequence: async () => published.length + 1,
    publish: async (_channel, message) => void published.push(message as LiveEnvelope),
  };
  return { bus, published };
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

  it("coalesces the merges of one second: two agents' snapshots within the window make one point, merged again after the last commit, and the roll-up holds both", async () => {
    const { orgId, runId, agentIds } = await seedRun();
    const { bus, published } = recordingBus();
    const ingest = createIngestService({ repos, bus, coalesceMs: 100 });
    const second = 1_700_000_100;
    expect(await ingest.ingest(orgId, agentIds[0], snapshot(runId, second * 1000))).toBe("stored");
    expect(published).toHaveLength(0); // acknowledged at once, merged once the window closes (or the second is complete)
    expect(await ingest.ingest(orgId, agentIds[1], snapshot(runId, second * 1000))).toBe("stored");
    await ingest.flush();
    // One point, then both agents' health apart from it (the point and the roll-up carry none). The second agent's
    // snapshot completed the second, so the point went out before its commit, and a merge after the commit
    // publishes the second again (another api instance's merge before that commit could not have read it).
    expect(published.map((e) => e.message.type)).toEqual(["point", "agent-health", "point"]);
    expect(published[2]?.message).toMatchObject({ type: "point", point: { t: second, agents: 2 } });
    expect(published[0]?.message).toMatchObject({ type: "point", point: { t: second, agents: 2 } });
    expect(published[0]?.message).not.toHaveProperty("point.agentHealth");
    expect(published[1]?.message).toMatchObject({
      type: "agent-health",
      t: second,
      agents: agentIds.map((agentId) => ({ agentId, cpuPercent: 1 })),
    });
    expect(await repos.snapshots.listSeconds(orgId, runId)).toMatchObject([{ t: second, agents: 2 }]);
    expect(await repos.snapshots.listSeconds(orgId, runId)).not.toHaveProperty("0.agentHealth");
    // The series as read joins each second's health from its snapshots.
    const [read] = (await repos.snapshots.listSeries(orgId, runId)) as SeriesPoint[];
    expect(read).toMatchObject({ t: second, agents: 2 });
    expect(read!.agentHealth?.map((h) => h.agentId).sort()).toEqual([...agentIds].sort());
  });

  it("network cohorts: each agent's cohort figures are stored with its snapshot, merged into the second's cohorts and summarised per cohort from storage", async () => {
    const { orgId, runId, agentIds } = await seedRun();
    const bus: Bus = { sequence: async () => 1, publish: async () => undefined };
    const ingest = createIngestService({ repos, bus, coalesceMs: 0 });
    const second = 1_700_000_120;
    const withCohort = (delayUs: number): MetricSnapshot => {
      const plain = snapshot(runId, second * 1000);
      return {
        ...plain,
        cohorts: {
          mobile: {
            clients: 1,
            counters: { ...plain.counters, networkPackets: 10, networkDropped: 1 },
            histograms: { rttUs: encodeValues([delayUs]) },
            applied: "kernel",
          },
        },
      };
    };
    await Promise.all([
      ingest.ingest(orgId, agentIds[0], withCohort(40_000)),
      ingest.ingest(orgId, agentIds[1], withCohort(80_000)),
    ]);
    await ingest.flush();
    const [point] = (await repos.snapshots.listSeries(orgId, runId)) as SeriesPoint[];
    expect(point!.cohorts!.mobile).toMatchObject({
      agents: 2,
      clients: 2,
      networkPackets: 20,
      networkDropped: 2,
      applied: "kernel",
    });
    expect(point!.cohorts!.mobile!.rttMaxMs).toBeCloseTo(80, 0);
    const summary = summariseRun(await repos.snapshots.listRun(orgId, runId));
    expect(summary.cohorts!.mobile).toMatchObject({
      roundTrips: 2,
      messagesSent: 10,
      networkDropped: 2,
      applied: "kernel",
    });
  });

  it("a second holding every load shard's snapshot merges at once, without waiting out the coalescing window", async () => {
    const { orgId, runId, agentIds } = await seedRun();
    const { bus, published } = recordingBus();
    // A window far longer than the test may take: flush() returns only because the complete second ended it.
    const ingest = createIngestService({ repos, bus, coalesceMs: 600_000 });
    const second = 1_700_000_150;
    for (const agentId of agentIds)
      expect(await ingest.ingest(orgId, agentId, snapshot(runId, second * 1000))).toBe("stored");
    await ingest.flush();
    expect(published.map((e) => e.message)).toMatchObject([
      { type: "point", point: { t: second, agents: 2 } },
      { type: "agent-health", t: second },
      { type: "point", point: { t: second, agents: 2 } },
    ]);
  });

  it("a snapshot is live before its batch commits, and its ack still waits for the commit", async () => {
    const { orgId, runId, agentIds } = await seedRun();
    const { bus, published } = recordingBus();
    let commit!: () => void;
    const committing = new Promise<void>((resolve) => (commit = resolve));
    const slowRepos = {
      ...repos,
      snapshots: {
        ...repos.snapshots,
        insertMany: async (rows: Parameters<typeof repos.snapshots.insertMany>[0]) => {
          await committing; // PostgreSQL's fsync, held until the test lets go
          return repos.snapshots.insertMany(rows);
        },
      },
    };
    const ingest = createIngestService({ repos: slowRepos, bus, coalesceMs: 10 });
    const second = 1_700_000_170;
    let acked = false;
    const ack = ingest.ingest(orgId, agentIds[0], snapshot(runId, second * 1000)).then((result) => {
      acked = true;
      return result;
    });
    await vi.waitFor(() => expect(published.map((e) => e.message.type)).toEqual(["point", "agent-health"]), {
      timeout: 5_000,
    });
    expect(published[0]?.message).toMatchObject({ type: "point", point: { t: second, agents: 1 } });
    expect(acked).toBe(false);
    commit();
    expect(await ack).toBe("stored");
    await ingest.flush();
    expect(published.at(-1)?.message).toMatchObject({ type: "point", point: { t: second, agents: 1 } });
    expect(await repos.snapshots.listSeconds(orgId, runId)).toMatchObject([{ t: second, agents: 1 }]);
  });

  it("the same snapshot twice in one batch is stored once: one ingest says stored, the other duplicate", async () => {
    const { orgId, runId, agentIds } = await seedRun();
    const bus: Bus = { sequence: async () => 1, publish: async () => undefined };
    const ingest = createIngestService({ repos, bus, coalesceMs: 50 });
    const twice = snapshot(runId, 1_700_000_200_000, 3);
    const results = await Promise.all([
      ingest.ingest(orgId, agentIds[0], twice),
      ingest.ingest(orgId, agentIds[0], twice),
    ]);
    expect(results.sort()).toEqual(["duplicate", "stored"]);
    expect(await ingest.ingest(orgId, agentIds[0], twice)).toBe("duplicate");
    await ingest.flush();
    expect(await repos.snapshots.listRun(orgId, runId)).toHaveLength(1);
    expect(await repos.snapshots.listSeconds(orgId, runId)).toMatchObject([{ t: 1_700_000_200, agents: 1 }]);
  });

  it("a row that fails does not fail its batch: the others are stored, it alone rejects (so it is never acknowledged)", async () => {
    const { orgId, runId, agentIds } = await seedRun();
    const batcher = createSnapshotBatcher({ insertMany: repos.snapshots.insertMany });
    const row = (agentId: string, seq: number) => bareRow(agentId, seq, 1_700_000_300);
    const [good, orphan, alsoGood] = await Promise.allSettled([
      batcher.submit({ orgId, runId, row: row(agentIds[0], 0) }),
      batcher.submit({ orgId, runId: crypto.randomUUID(), row: row(agentIds[1], 0) }), // no such run: a foreign-key violation
      batcher.submit({ orgId, runId, row: row(agentIds[1], 0) }),
    ]);
    expect(good).toEqual({ status: "fulfilled", value: true });
    expect(alsoGood).toEqual({ status: "fulfilled", value: true });
    expect(orphan).toMatchObject({ status: "rejected", reason: { message: expect.stringMatching(/foreign key/) } });
    expect(await repos.snapshots.listRun(orgId, runId)).toHaveLength(2);
  });

  it("a batch whose commit fails acknowledges none of its snapshots", async () => {
    const { orgId, runId, agentIds } = await seedRun();
    const gone = createDb("postgres://postgres@127.0.0.1:9/gone", { max: 1 }); // nothing listens there: every statement fails
    const batcher = createSnapshotBatcher({ insertMany: createRepos(gone).snapshots.insertMany });
    const row = (agentId: string) => bareRow(agentId, 0, 1_700_000_400);
    const results = await Promise.allSettled(
      agentIds.map((agentId) => batcher.submit({ orgId, runId, row: row(agentId) })),
    );
    await gone.destroy();
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(await repos.snapshots.listRun(orgId, runId)).toHaveLength(0);
  });

  it("a second whose agents sit on two api instances: each instance's point includes the snapshots the other stored", async () => {
    const { orgId, runId, agentIds } = await seedRun();
    const { bus, published } = recordingBus();
    const [apiA, apiB] = [
      createIngestService({ repos, bus, coalesceMs: 20 }),
      createIngestService({ repos, bus, coalesceMs: 20 }),
    ];
    const second = 1_700_000_500;
    const lastPoint = () => published.filter((e) => e.message.type === "point").at(-1)?.message;
    const newHealth = (from: number) =>
      published
        .slice(from)
        .flatMap((e) => (e.message.type === "agent-health" ? e.message.agents.map((h) => h.agentId) : []));
    expect(await apiA.ingest(orgId, agentIds[0], snapshot(runId, second * 1000))).toBe("stored");
    await apiA.flush();
    expect(lastPoint()).toMatchObject({ type: "point", point: { t: second, agents: 1 } });
    expect(newHealth(0)).toEqual([agentIds[0]]);
    let seen = published.length;
    expect(await apiB.ingest(orgId, agentIds[1], snapshot(runId, second * 1000))).toBe("stored");
    await apiB.flush();
    expect(lastPoint()).toMatchObject({ type: "point", point: { t: second, agents: 2, clients: 2 } });
    expect(newHealth(seen).sort()).toEqual([...agentIds].sort()); // B's point carried A's agent for the first time too
    seen = published.length;
    // A's next merge of the second (a late snapshot of its agent) reads B's snapshot too.
    expect(await apiA.ingest(orgId, agentIds[0], snapshot(runId, second * 1000 + 500, 1))).toBe("stored");
    await apiA.flush();
    expect(lastPoint()).toMatchObject({ type: "point", point: { t: second, agents: 2, clients: 3 } });
    expect(newHealth(seen).sort()).toEqual([agentIds[0], agentIds[1]].sort());
    expect(await repos.snapshots.listSeconds(orgId, runId)).toMatchObject([{ t: second, agents: 2, clients: 3 }]);
  });
});
