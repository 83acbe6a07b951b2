import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EnrolmentTokenCreated } from "@throng/protocol/api";
import { RunView } from "@throng/protocol/run";
import { encodeValues } from "@throng/core/metrics/histogram";
import type { SearchPhase } from "@throng/protocol/capacity-search";
import { connectTestAgent, helloWith, reconnectTestAgent } from "../testing/test-agent";
import { startTestApi, type TestApi } from "../testing/test-api";
import { heldSnapshot } from "../testing/snapshots";
import { createPlan } from "../testing/plans";

// The control plane's side of an automatic capacity search (agent/PROTOCOL.md §10 "Capacity search steps"),
// frame by frame: the worker's search-step job is called directly, as the gateway tests call start and finish.
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({
    orchestration: {
      startDelayMs: 100,
      finishGraceMs: 60_000,
      agentLostGraceMs: 60_000,
      search: { searchLagMs: 300, searchMaxLagMs: 60_000, searchRetryMs: 100 },
    },
  });
});
afterAll(async () => {
  await api?.close();
});

describe("automatic capacity search under the control plane (agent/PROTOCOL.md §10)", () => {
  it("§10 judges each step on the stored seconds, stores the decision, tells the agent the next level (again after a repeat or a reconnect) and stops the run when done", async () => {
    const user = await api.signUp("Sam");
    const token = EnrolmentTokenCreated.parse((await user.request("POST", "/api/enrolment-tokens")).json).token;
    let agent = await connectTestAgent(api.gatewayUrl);
    agent.send({ type: "hello", payload: helloWith({ kind: "enrolment", token }) });
    const ready = await agent.next("ready");
    const plan = await createPlan(user, {
      name: "search",
      // Coarse levels 10, 20, 30, 40; after a break, one level halfway between the last held and the broken one.
      load: {
        clients: 40,
        durationSec: 600,
        shape: {
          kind: "step-up",
          mode: "auto",
          startClients: 10,
          stepDurationSec: 2,
          coarseSteps: 4,
          fineSteps: 2,
        },
      },
      slos: [{ metric: "rtt-p99-ms", below: 50 }],
    });
    const run = RunView.parse((await user.request("POST", `/api/plans/${plan.id}/runs`)).json);
    const orgId = ready.orgId;
    await api.deps.orchestrator.start(orgId, run.id);
    const assignment = await agent.next("run-assignment");
    expect(assignment.searchStep).toBeUndefined();
    expect(assignment.clientsBefore).toBe(0);
    const stored = () =>
      api.db
        .selectFrom("run_search_steps")
        .select(["step", "clients", "phase", "held"])
        .where("run_id", "=", run.id)
        .orderBy("step")
        .execute();
    expect(await stored()).toEqual([{ step: 0, clients: 10, phase: "coarse", held: null }]);
    // The first look is delayed to just after step 0's end.
    expect(await api.queue.getJob(`search-step-${run.id}-0-0`)).toBeTruthy();

    const send = async (seq: number, step: number, clients: number, rttUs: number) => {
      agent.send({
        type: "snapshot",
        payload: heldSnapshot(assignment, seq, clients, {
          step,
          counters: {
            connectionsOpened: 0,
            messagesSent: clients * 10,
            messagesReceived: clients * 10,
            bytesSent: 0,
            bytesReceived: 0,
          },
          histograms: { rttUs: encodeValues(Array(50).fill(rttUs)) },
          health: { cpuPercent: 5, eventLoopP99Ms: 1, rssBytes: 50_000_000 },
        }),
      });
      expect(await agent.next("snapshot-ack")).toEqual({ runId: run.id, seq });
    };
    const decide = (step: number, attempt = 0) => api.deps.orchestrator.searchStep(orgId, run.id, step, attempt);
    // A whole step: its two seconds (seq 2·step and 2·step+1) at one round trip, then the job that judges it.
    const play = async (step: number, clients: number, rttUs: number) => {
      await send(2 * step, step, clients, rttUs);
      await send(2 * step + 1, step, clients, rttUs);
      await decide(step);
    };
    // What the agent is told when the search moves to `step` (each step lasts 2 s from the run's start).
    const searchStep = (step: number, clients: number, phase: SearchPhase) => ({
      runId: run.id,
      step,
      clients,
      phase,
      startAt: assignment.startAt + step * 2_000,
    });

    // Step 0 (10 clients, 2 ms round trips) holds: the next coarse level starts at its end.
    await play(0, 10, 2_000);
    const step1 = await agent.next("search-step");
    expect(step1).toEqual(searchStep(1, 20, "coarse"));
    expect(await stored()).toEqual([
      { step: 0, clients: 10, phase: "coarse", held: true },
      { step: 1, clients: 20, phase: "coarse", held: null },
    ]);

    // A repeated job (a worker that stopped after storing) sends the stored level again; it decides nothing new.
    await decide(0);
    expect(await agent.next("search-step")).toEqual(step1);
    expect(await stored()).toHaveLength(2);

    // A reconnecting agent resumes at the level the search has reached.
    await agent.close();
    agent = await reconnectTestAgent(api.gatewayUrl, ready);
    await agent.next("ready");
    expect((await agent.next("run-assignment")).searchStep).toEqual({
      step: 1,
      clients: 20,
      phase: "coarse",
      startAt: assignment.startAt + 2_000,
    });

    // Step 1 breaks (80 ms round trips), but its last second is not in yet: the job waits and looks again.
    await send(2, 1, 20, 80_000);
    await decide(1);
    expect(await api.queue.getJob(`search-step-${run.id}-1-1`)).toBeTruthy();
    expect(await stored()).toHaveLength(2);
    await send(3, 1, 20, 80_000);
    await decide(1, 1);
    // Back at 10 (the last level that held) until it holds again: the server drains the overload first.
    expect(await agent.next("search-step")).toEqual(searchStep(2, 10, "settle"));
    await play(2, 10, 60_000);
    expect(await agent.next("search-step")).toEqual(searchStep(3, 10, "settle"));
    await play(3, 10, 2_000);
    // Recovered: the fine phase climbs, halfway between 10 (held) and 20 (broke).
    expect(await agent.next("search-step")).toEqual(searchStep(4, 15, "fine"));

    // The only fine level holds: the search is over, and the agent is told to stop.
    await play(4, 15, 3_000);
    expect(await agent.next("run-stop")).toEqual({
      runId: run.id,
      reason: "capacity search finished: every fine step below the broken coarse step held",
    });
    expect((await stored()).map((s) => [s.phase, s.held])).toEqual([
      ["coarse", true],
      ["coarse", false],
      ["settle", false],
      ["settle", true],
      ["fine", true],
    ]);

    agent.send({ type: "shard-status", payload: { runId: run.id, state: "finished", lastSeq: 9 } });
    await expect.poll(async () => api.queue.getJob(`finish-all-shards-done-${run.id}`), { timeout: 5000 }).toBeTruthy();
    await api.deps.orchestrator.finish(orgId, run.id);
    const done = RunView.parse((await user.request("GET", `/api/runs/${run.id}`)).json);
    expect(done.status).toBe("finished");
    expect(done.events.map((e) => e.kind)).toContain("search-ended");
    expect(done.capacity).toMatchObject({ clients: 15, breakingStep: 1 });
    expect(done.capacity!.steps.map((s) => [s.clients, s.phase, s.held])).toEqual([
      [10, "coarse", true],
      [20, "coarse", false],
      [10, "settle", false],
      [10, "settle", true],
      [15, "fine", true],
    ]);
    expect(done.capacity!.sentence).toBe(
      "Holds 15 clients while meeting rtt-p99-ms < 50; broke at 20 clients on rtt-p99-ms. Searched coarse steps of 10, then 5 between 10 and 20 (after 2 settle steps back at 10 while the server recovered).",
    );
    await agent.close();
  });
});
