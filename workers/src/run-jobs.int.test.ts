import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Redis } from "ioredis";
import { Channel } from "@throng/protocol/jobs";
import { RunAssignment } from "@throng/protocol/agent";
import { encodeValues } from "@throng/core/metrics/histogram";
import { createIngestService } from "@throng/core/metrics/ingest";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import type { Db } from "@throng/db/client";
import type { Repos } from "@throng/db/repos";
import type { SnapshotRow } from "@throng/db/repos/snapshots";
import { createBus, createRedis, createSubscriber } from "@throng/runtime/redis";
import { PlanSpec } from "@throng/protocol/plan";
import { seedAgent, seedOrg } from "@throng/core/db-seed.test-support";
import { startWorkersBed, type WorkersBed } from "./workers-bed.test-support";

const spec = {
  name: "p",
  target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
  scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 },
  load: { clients: 9, durationSec: 1, rampUpSec: 0 },
};

let bed: WorkersBed;
let db: Db;
let repos: Repos;
let runQueue: WorkersBed["runQueue"];
let workers: WorkersBed["workers"];
let subscriberRedis: Redis;
let subscriber: ReturnType<typeof createSubscriber>;

beforeAll(async () => {
  bed = await startWorkersBed({ redisName: "t" });
  ({ db, repos, runQueue, workers } = bed);
  subscriberRedis = createRedis(process.env.REDIS_URL!, "t-sub");
  subscriber = createSubscriber(subscriberRedis, () => {});
});
afterAll(async () => {
  subscriberRedis?.disconnect();
  await bed?.stop();
});

/** An agent's counters in one ordinary second of 9 clients: 90 messages each way, no failures. */
const nineClientCounters = {
  connectionsOpen: 9,
  connectionsOpened: 9,
  connectionsFailed: 0,
  connectionsClosed: 0,
  messagesSent: 90,
  messagesReceived: 90,
  bytesSent: 1,
  bytesReceived: 1,
  errors: 0,
};

/** One ordinary second of 9 clients as stored (second 1000 + seq, every reply in 1 ms), unless `parts` says otherwise. */
const storedSecond = (agentId: string, seq: number, parts: Partial<SnapshotRow> = {}): SnapshotRow => ({
  agentId,
  seq,
  second: 1000 + seq,
  intervalMs: 1000,
  clients: 9,
  step: null,
  histograms: {},
  counters: nineClientCounters,
  rttHist: encodeValues(Array(90).fill(1_000)),
  health: { cpuPercent: 1, eventLoopP99Ms: 1, rssBytes: 1 },
  ...parts,
});

/** Stores `storedSecond(agentId, seq)` for the run. */
const insertSecond = (orgId: string, runId: string, agentId: string, seq: number) =>
  repos.snapshots.insert(orgId, runId, storedSecond(agentId, seq));

/** One ordinary second of 9 clients as the agent sends it (seconds at 1000 + seq, as insertSecond stores them). */
const lateSnapshot = (runId: string, seq: number): MetricSnapshot => ({
  runId,
  seq,
  intervalStart: (1000 + seq) * 1000,
  intervalMs: 1000,
  clients: 9,
  counters: nineClientCounters,
  histograms: { rttUs: encodeValues(Array(90).fill(1_000)) },
  health: { cpuPercent: 1, eventLoopP99Ms: 1, rssBytes: 1 },
});

/** An org with one online agent and a queued run, written straight to the database. */
async function seedRun(agentCores = 2, runSpec: object = spec) {
  const orgId = await seedOrg(db);
  const agentId = await seedAgent(repos, orgId, { cores: agentCores });
  await repos.fleet.markSeen(orgId, agentId, true, new Date());
  const planId = crypto.randomUUID();
  await repos.plans.insert(orgId, { id: planId, name: "p", spec: PlanSpec.parse(runSpec) });
  const runId = crypto.randomUUID();
  await repos.runs.insert(orgId, { id: runId, planId, spec: PlanSpec.parse(runSpec), status: "queued" });
  return { orgId, agentId, runId };
}

describe("runs queue processors (real BullMQ, Redis and PostgreSQL)", () => {
  it("start-run assigns the load to the online agent over Redis, then finish-run closes it with a summary", async () => {
    const { orgId, agentId, runId } = await seedRun();
    const received: unknown[] = [];
    const unsubscribe = await subscriber.subscribe(Channel.agent(agentId), (m) => received.push(m));
    await runQueue.jobs.startRun({ orgId, runId });

    await expect.poll(() => received.length, { timeout: 10_000 }).toBe(1);
    const message = received[0] as { type: string; payload: unknown };
    expect(message.type).toBe("run-assignment");
    const assignment = RunAssignment.parse(message.payload);
    expect(assignment).toMatchObject({ runId, clients: 9, shardCount: 1 });
    expect((await repos.runs.get(orgId, runId))?.status).toBe("running");

    await repos.snapshots.insert(
      orgId,
      runId,
      storedSecond(agentId, 0, { second: Math.floor(assignment.startAt / 1000), rttHist: encodeValues([1000, 2000]) }),
    );
    // The planned-end job fires by itself (duration 1 s + 200 ms grace); the agent never reported, so it is told to stop.
    await expect.poll(async () => (await repos.runs.get(orgId, runId))?.status, { timeout: 15_000 }).toBe("finished");
    const run = await repos.runs.get(orgId, runId);
    expect(run?.summary).toMatchObject({ peakConnections: 9, messagesReceived: 90 });
    expect(run?.error).toMatch(/did not report/);
    await expect.poll(() => received.some((m) => (m as { type: string }).type === "run-stop")).toBe(true);
    await unsubscribe();
  });

  it("is idempotent: running start-run twice assigns once and keeps one start time", async () => {
    const { orgId, agentId, runId } = await seedRun();
    await workers.orchestrator.start(orgId, runId);
    const first = await repos.runs.get(orgId, runId);
    await workers.orchestrator.start(orgId, runId);
    const second = await repos.runs.get(orgId, runId);
    expect(second?.startAt?.getTime()).toBe(first?.startAt?.getTime());
    expect(await repos.runs.listShards(orgId, runId)).toHaveLength(1);
    expect((await repos.runs.listShards(orgId, runId))[0]?.agentId).toBe(agentId);
  });

  it("fails a run with no measurement instead of leaving it hanging", async () => {
    const { orgId, runId } = await seedRun();
    await workers.orchestrator.start(orgId, runId);
    await workers.orchestrator.finish(orgId, runId);
    await workers.orchestrator.finish(orgId, runId);
    const run = await repos.runs.get(orgId, runId);
    expect(run?.status).toBe("failed");
    expect(run?.error).toMatch(/did not report/);
  });

  it("fails a start when no agent is online", async () => {
    const { orgId, agentId, runId } = await seedRun();
    await repos.fleet.markSeen(orgId, agentId, false, new Date());
    await workers.orchestrator.start(orgId, runId);
    const run = await repos.runs.get(orgId, runId);
    expect(run?.status).toBe("failed");
    expect(run?.error).toMatch(/No agent is online/);
  });

  it("fails a start whose plan asks to watch the server when no watcher is online (PROTOCOL.md §11), and gives an online watcher a watch shard", async () => {
    const watched = { ...spec, watch: { labels: { role: "server" } } };
    const blind = await seedRun(2, watched);
    await workers.orchestrator.start(blind.orgId, blind.runId);
    const failed = await repos.runs.get(blind.orgId, blind.runId);
    expect(failed?.status).toBe("failed");
    expect(failed?.error).toMatch(/no watcher is online.*--label role=server/);

    const { orgId, agentId, runId } = await seedRun(2, watched);
    const watcherId = await seedAgent(repos, orgId, {
      hostname: "server-host",
      cores: 8,
      labels: { role: "server" },
      role: "watch",
    });
    await repos.fleet.markSeen(orgId, watcherId, true, new Date());
    const received: unknown[] = [];
    const unsubscribe = await subscriber.subscribe(Channel.agent(watcherId), (m) => received.push(m));
    await workers.orchestrator.start(orgId, runId);
    const shards = await repos.runs.listShards(orgId, runId);
    // The watcher's 8 cores take none of the 9 clients: the load agent has them all.
    expect(shards.map((s) => [s.agentId, s.role, s.clients])).toEqual([
      [agentId, "load", 9],
      [watcherId, "watch", 0],
    ]);
    await expect.poll(() => received.length, { timeout: 10_000 }).toBe(1);
    expect(RunAssignment.parse((received[0] as { payload: unknown }).payload)).toMatchObject({
      runId,
      role: "watch",
      clients: 0,
    });
    await unsubscribe();
  });

  it("check-agent, after the grace period, marks a silent agent lost; with nothing measured the run then fails, saying so", async () => {
    const { orgId, agentId, runId } = await seedRun();
    await workers.orchestrator.start(orgId, runId);
    await repos.fleet.markSeen(orgId, agentId, false, new Date());
    await workers.orchestrator.agentDisconnected(orgId, agentId);
    await expect.poll(async () => (await repos.runs.get(orgId, runId))?.status, { timeout: 10_000 }).toBe("failed");
    expect((await repos.runs.get(orgId, runId))?.error).toMatch(/was lost mid-run/);
    expect((await repos.runs.getShard(orgId, runId, agentId))?.state).toBe("lost");
    expect((await repos.runs.listEvents(orgId, runId))[0]?.kind).toBe("agent-lost");
  });

  it("finish-run judges the plan's SLOs and, for a step-up run, stores the capacity estimate", async () => {
    const stepSpec = { ...spec, slos: [{ metric: "rtt-p99-ms", below: 10 }] };
    const { orgId, agentId, runId } = await seedRun(2, stepSpec);
    await workers.orchestrator.start(orgId, runId);
    const insert = (seq: number, step: number, clients: number, p99Us: number) =>
      repos.snapshots.insert(
        orgId,
        runId,
        storedSecond(agentId, seq, {
          clients,
          step,
          counters: {
            ...nineClientCounters,
            connectionsOpen: clients,
            connectionsOpened: 0,
            messagesSent: clients * 10,
            messagesReceived: clients * 10,
          },
          rttHist: encodeValues([...Array(98).fill(1_000), p99Us, p99Us]),
        }),
      );
    let seq = 0;
    for (const [step, clients, p99Us] of [
      [0, 10, 2_000],
      [1, 20, 3_000],
      [2, 30, 50_000],
    ] as const) {
      for (let i = 0; i < 3; i++) await insert(seq++, step, clients, p99Us);
    }
    await workers.orchestrator.shardStatus(orgId, agentId, { runId, state: "finished", lastSeq: seq - 1 });
    await workers.orchestrator.finish(orgId, runId);
    const run = await repos.runs.get(orgId, runId);
    // Over the whole run the 6 slow replies are under 1% of 900, so p99 holds; the per-second view shows the 3 bad seconds.
    expect(run?.verdict).toMatchObject({
      passed: true,
      outcome: "passed",
      slos: [{ metric: "rtt-p99-ms", passed: true, breachedSeconds: 3, measuredSeconds: 9 }],
    });
    expect(run?.capacity).toMatchObject({ clients: 20, breakingStep: 2, breakingSlos: ["rtt-p99-ms"], valid: true });
  });

  it("finish-run does not pass a run whose agent never reported the end of its shard, and says why", async () => {
    const { orgId, agentId, runId } = await seedRun(2, { ...spec, slos: [{ metric: "rtt-p99-ms", below: 10 }] });
    await workers.orchestrator.start(orgId, runId);
    await insertSecond(orgId, runId, agentId, 0);
    await workers.orchestrator.finish(orgId, runId);
    const run = await repos.runs.get(orgId, runId);
    expect(run?.status).toBe("finished");
    expect(run?.verdict).toMatchObject({ passed: false, outcome: "incomplete", slos: [{ status: "met" }] });
    expect((run!.verdict as { reasons: string[] }).reasons.join("\n")).toMatch(/did not report the end of its shard/);
  });

  it("finish-run names the seconds a shard reported and never delivered, in one seconds-lost event, and does not pass the run", async () => {
    const { orgId, agentId, runId } = await seedRun();
    await workers.orchestrator.start(orgId, runId);
    for (const seq of [0, 1, 4]) await insertSecond(orgId, runId, agentId, seq);
    await workers.orchestrator.shardStatus(orgId, agentId, { runId, state: "finished", lastSeq: 5 });
    await workers.orchestrator.finish(orgId, runId);
    await workers.orchestrator.finish(orgId, runId); // a job may run twice: still one event
    const run = await repos.runs.get(orgId, runId);
    const expected = `agent rig (${agentId}) lost seconds 2–3, 5 (3 s): they never arrived, though the agent reported its shard finished at second 5`;
    expect(
      (await repos.runs.listEvents(orgId, runId))
        .filter((e) => e.kind === "seconds-lost")
        .map((e) => [e.agentId, e.message]),
    ).toEqual([[agentId, expected]]);
    expect(run?.verdict).toMatchObject({ passed: false, outcome: "incomplete" });
    expect((run!.verdict as { reasons: string[] }).reasons).toContain(expected);
  });

  it("an aborted run names the seconds its agent measured before the abort and never delivered", async () => {
    const { orgId, agentId, runId } = await seedRun();
    await workers.orchestrator.start(orgId, runId);
    for (const seq of [0, 2]) await insertSecond(orgId, runId, agentId, seq);
    await workers.orchestrator.abortRun({ orgId, role: "owner", userId: "u", label: "a test", via: "session" }, runId);
    // The agent stops on run-stop and reports its shard ended at the last second it measured.
    await workers.orchestrator.shardStatus(orgId, agentId, { runId, state: "finished", lastSeq: 3 });
    await workers.orchestrator.finish(orgId, runId);
    const run = await repos.runs.get(orgId, runId);
    const expected = `agent rig (${agentId}) lost seconds 1, 3 (2 s): they never arrived, though the agent reported its shard finished at second 3`;
    expect(run?.status).toBe("aborted");
    expect(
      (await repos.runs.listEvents(orgId, runId)).filter((e) => e.kind === "seconds-lost").map((e) => e.message),
    ).toEqual([expected]);
    expect((run!.verdict as { reasons: string[] }).reasons).toContain(expected);
  });

  it("seconds that reach a run after it closed are judged again: the summary, the verdict and the lost seconds follow the stored series, and an event says how many came late (issue 27)", async () => {
    const { orgId, agentId, runId } = await seedRun(2, { ...spec, load: { clients: 9, durationSec: 6, rampUpSec: 0 } });
    await workers.orchestrator.start(orgId, runId);
    for (const seq of [0, 1]) await insertSecond(orgId, runId, agentId, seq);
    await workers.orchestrator.shardStatus(orgId, agentId, { runId, state: "finished", lastSeq: 5 });
    await workers.orchestrator.finish(orgId, runId);
    const closed = await repos.runs.get(orgId, runId);
    expect(closed?.verdict).toMatchObject({ outcome: "incomplete" });
    expect((await repos.runs.listEvents(orgId, runId)).filter((e) => e.kind === "seconds-lost")).toHaveLength(1);

    // Its last four seconds arrive through ingest, as from an agent cut off until after the end.
    const ingest = createIngestService({
      repos,
      bus: createBus(bed.busRedis),
      onLateSnapshot: (org, run) => runQueue.jobs.rejudgeRun({ orgId: org, runId: run }),
    });
    for (const seq of [2, 3, 4, 5]) await ingest.ingest(orgId, agentId, lateSnapshot(runId, seq));
    await expect
      .poll(
        async () =>
          (await repos.runs.listEvents(orgId, runId)).filter((e) => e.kind === "judged-again").map((e) => e.message),
        { timeout: 15_000 },
      )
      .toEqual([
        "4 seconds arrived after the run closed; the run was judged again (its verdict is now passed, was incomplete)",
      ]);
    const run = await repos.runs.get(orgId, runId);
    expect(run?.summary).toMatchObject({ messagesReceived: 6 * 90, durationSec: 6 });
    expect(run?.verdict).toMatchObject({ outcome: "passed", reasons: [] });
    expect(run?.judgedSnapshots).toBe(6);
    expect((await repos.runs.listEvents(orgId, runId)).filter((e) => e.kind === "seconds-lost")).toEqual([]);
    expect(await repos.snapshots.listSeconds(orgId, runId)).toHaveLength(6);
    // Judged again twice (a job may run twice): no second event.
    await workers.orchestrator.judgeAgain(orgId, runId);
    expect((await repos.runs.listEvents(orgId, runId)).filter((e) => e.kind === "judged-again")).toHaveLength(1);
  });

  it("rejects a malformed job payload without retrying it", async () => {
    const job = await runQueue.queue.add("start-run", { orgId: "o", runId: "not-a-uuid" }, { attempts: 3 });
    await expect
      .poll(async () => (await runQueue.queue.getJob(job.id!))?.failedReason, { timeout: 10_000 })
      .toMatch(/runId/);
    expect((await runQueue.queue.getJob(job.id!))?.attemptsMade).toBe(1);
  });
});
