import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentCloseCode } from "@throng/protocol/agent";
import { AgentView, EnrolmentTokenCreated, type PlanView } from "@throng/protocol/api";
import type { ErrorBody } from "@throng/protocol/errors";
import type { RunPage } from "@throng/protocol/run-list";
import { LiveEnvelope, type LiveMessage, RunSeries, RunView } from "@throng/protocol/run";
import { encodeValues } from "@throng/core/metrics/histogram";
import { connectTestAgent, enrolmentToken, enrolTestAgent, helloWith, reconnectTestAgent } from "../testing/test-agent";
import { startTestApi, type TestApi, type TestUser } from "../testing/test-api";
import { heldSnapshot } from "../testing/snapshots";
import { readEventData } from "../testing/event-stream";
import { createPlan, queuedRun } from "../testing/plans";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ orchestration: { startDelayMs: 100, finishGraceMs: 60_000, agentLostGraceMs: 60_000 } });
});
afterAll(async () => {
  await api?.close();
});

/** The first agent's status once it is `wanted`, or its last status when `timeoutMs` passes first. */
async function statusWithin(user: TestUser, wanted: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = AgentView.parse(
      (await user.request<{ agents: AgentView[] }>("GET", "/api/agents")).json.agents[0],
    ).status;
    if (status === wanted || Date.now() > deadline) return status;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const enrolledAgent = (user: TestUser) => enrolTestAgent(api.gatewayUrl, user);

/** A new agent of `user`'s org and a run of a saved plan (`overrides` on top) started and assigned to it, as the worker's start-run job starts it. */
async function assignedRun(user: TestUser, overrides: Record<string, unknown> = {}) {
  const { agent, ready } = await enrolledAgent(user);
  const run = await queuedRun(user, overrides);
  await api.deps.orchestrator.start(ready.orgId, run.id);
  const assignment = await agent.next("run-assignment");
  return { agent, ready, run, assignment };
}

describe("agent gateway (agent/PROTOCOL.md)", () => {
  it("§2 closes with unauthenticated (4003) for an unknown enrolment token", async () => {
    const agent = await connectTestAgent(api.gatewayUrl);
    agent.send({ type: "hello", payload: helloWith({ kind: "enrolment", token: "thr_enr_notarealtoken_abcdef" }) });
    const { code, reason } = await agent.closed;
    expect(code).toBe(AgentCloseCode.unauthenticated);
    expect(reason).toMatch(/enrolment token/);
  });

  it("§1 closes with invalidMessage (4001) on a malformed frame, naming what was wrong", async () => {
    const agent = await connectTestAgent(api.gatewayUrl);
    agent.sendRaw("{not json");
    expect(await agent.closed).toEqual({ code: AgentCloseCode.invalidMessage, reason: "frame is not JSON" });
    const second = await connectTestAgent(api.gatewayUrl);
    second.sendRaw(JSON.stringify({ v: 1, type: "hello", payload: { agentVersion: "x" } }));
    const closed = await second.closed;
    expect(closed.code).toBe(AgentCloseCode.invalidMessage);
    expect(closed.reason).toMatch(/invalid hello/);
  });

  it("§2 requires hello first (4000) and refuses another protocol version (4006)", async () => {
    const early = await connectTestAgent(api.gatewayUrl);
    early.send({ type: "heartbeat", payload: { sentAt: Date.now() } });
    expect((await early.closed).code).toBe(AgentCloseCode.handshakeRequired);
    const user = await api.signUp("Old");
    const old = await connectTestAgent(api.gatewayUrl);
    old.send({
      type: "hello",
      payload: helloWith({ kind: "enrolment", token: await enrolmentToken(user) }, { protocolVersion: 99 }),
    });
    const closed = await old.closed;
    expect(closed.code).toBe(AgentCloseCode.versionUnsupported);
    expect(closed.reason).toMatch(/run throng-agent/);
  });

  it("§2 exchanges an enrolment token for a credential that works on the next connection", async () => {
    const user = await api.signUp("Hal");
    const { agent, ready } = await enrolledAgent(user);
    expect(ready.credential?.secret).toMatch(/^thr_agt_/);
    const agents = (await user.request<{ agents: AgentView[] }>("GET", "/api/agents")).json.agents.map((a: unknown) =>
      AgentView.parse(a),
    );
    expect(agents).toHaveLength(1);
    expect(agents[0]).toMatchObject({ hostname: "rig-1", cores: 2, status: "online" });
    await agent.close();
    // The server marks the agent offline in its own close handler, which may run after the client's close
    // resolves: poll (bounded) rather than read once.
    expect(await statusWithin(user, "offline", 5_000)).toBe("offline");

    const again = await reconnectTestAgent(api.gatewayUrl, ready);
    const second = await again.next("ready");
    expect(second.agentId).toBe(ready.agentId);
    expect(second.credential).toBeUndefined();
    const wrong = await reconnectTestAgent(api.gatewayUrl, ready, "thr_agt_wrong");
    expect((await wrong.closed).code).toBe(AgentCloseCode.unauthenticated);
    await again.close();
  });

  it("§4–§6 assigns a run, stores snapshots once, streams points live and closes the run", async () => {
    const user = await api.signUp("Ivy");
    const { agent, ready } = await enrolledAgent(user);
    const run = await queuedRun(user, { load: { clients: 7, durationSec: 2 } });
    expect(run.status).toBe("queued");
    expect(await api.queue.getJob(`start-${run.id}`)).toBeTruthy();

    const live = await fetchLive(user, run.id);
    // What the worker's start-run job does (workers/ tests run it through BullMQ).
    await api.deps.orchestrator.start(ready.orgId, run.id);
    const assignment = await agent.next("run-assignment");
    expect(assignment).toMatchObject({ runId: run.id, clients: 7, shardIndex: 0, shardCount: 1 });

    const t0 = Math.floor(assignment.startAt / 1000) * 1000;
    const snapshot = (seq: number) =>
      heldSnapshot({ runId: run.id, startAt: t0 }, seq, 7, {
        counters: { messagesSent: 70, messagesReceived: 70, bytesSent: 4480, bytesReceived: 1400 },
        histograms: { rttUs: encodeValues(Array(70).fill(2_000 + seq * 1000)) },
        health: { cpuPercent: 5, eventLoopP99Ms: 1, rssBytes: 50_000_000 },
      });
    for (const seq of [0, 1, 1]) {
      agent.send({ type: "snapshot", payload: snapshot(seq) });
      expect(await agent.next("snapshot-ack")).toEqual({ runId: run.id, seq });
    }
    const series = RunSeries.parse((await user.request("GET", `/api/runs/${run.id}/series`)).json);
    expect(series.points.map((p) => p.connections)).toEqual([7, 7]);
    expect(series.points[1]?.rttP50Ms).toBeCloseTo(3, 1);
    const points = await live.until((messages) => messages.filter((m) => m.type === "point").length >= 2);
    expect(
      points.filter((m) => m.type === "point").map((m) => m.type === "point" && m.point.messagesReceivedPerSec),
    ).toEqual([70, 70]);

    agent.send({ type: "shard-status", payload: { runId: run.id, state: "finished", lastSeq: 1 } });
    await expect.poll(async () => api.queue.getJob(`finish-all-shards-done-${run.id}`), { timeout: 5000 }).toBeTruthy();
    await api.deps.orchestrator.finish(ready.orgId, run.id);
    const done = RunView.parse((await user.request("GET", `/api/runs/${run.id}`)).json);
    expect(done.status).toBe("finished");
    expect(done.summary).toMatchObject({ peakConnections: 7, messagesReceived: 140, agents: 1 });
    await live.until((messages) => messages.some((m) => m.type === "run" && m.run.status === "finished"));
    // Every live message is numbered, one after the other, starting from the run's count when the stream opened.
    expect(live.seqs.slice(1)).toEqual(live.seqs.slice(1).map((_, i) => live.seqs[0]! + 1 + i));
    live.stop();
    await agent.close();
  });

  it("resends an active assignment when the agent reconnects", async () => {
    const user = await api.signUp("Jo");
    const { agent, ready, assignment: first } = await assignedRun(user, { load: { clients: 3, durationSec: 30 } });
    await agent.close();
    const again = await reconnectTestAgent(api.gatewayUrl, ready);
    await again.next("ready");
    expect(await again.next("run-assignment")).toEqual(first);
    await again.close();
  });

  it("ignores snapshots for a run of another organisation", async () => {
    const owner = await api.signUp("Kim");
    const intruder = await api.signUp("Lex");
    const { agent: ownerAgent, ready } = await enrolledAgent(owner);
    const run = await queuedRun(owner, { load: { clients: 1, durationSec: 30 } });
    await api.deps.orchestrator.start(ready.orgId, run.id);
    const { agent: other } = await enrolledAgent(intruder);
    other.send({
      type: "snapshot",
      payload: heldSnapshot({ runId: run.id, startAt: Date.now() }, 0, 1, {
        counters: { messagesSent: 1, messagesReceived: 1, bytesSent: 1, bytesReceived: 1 },
        histograms: { rttUs: encodeValues([1000]) },
        health: { cpuPercent: 1, eventLoopP99Ms: 1, rssBytes: 1 },
      }),
    });
    await other.next("snapshot-ack");
    expect(RunSeries.parse((await owner.request("GET", `/api/runs/${run.id}/series`)).json).points).toEqual([]);
    expect((await intruder.request("GET", `/api/runs/${run.id}`)).status).toBe(404);
    await other.close();
    await ownerAgent.close();
  });
});

describe("control plane (agent/PROTOCOL.md)", () => {
  it("§2 refuses an agent of another release line, saying which version to run (4006)", async () => {
    const user = await api.signUp("Ver");
    const agent = await connectTestAgent(api.gatewayUrl);
    agent.send({
      type: "hello",
      payload: helloWith({ kind: "enrolment", token: await enrolmentToken(user) }, { agentVersion: "9.0.0" }),
    });
    const closed = await agent.closed;
    expect(closed.code).toBe(AgentCloseCode.versionUnsupported);
    expect(closed.reason).toMatch(/too new; this server needs throng-agent 0\.1\.x/);
  });

  it("§2 a single-use enrolment token enrols one agent only", async () => {
    const user = await api.signUp("One");
    const token = EnrolmentTokenCreated.parse(
      (await user.request("POST", "/api/enrolment-tokens", { singleUse: true })).json,
    ).token;
    const first = await connectTestAgent(api.gatewayUrl);
    first.send({ type: "hello", payload: helloWith({ kind: "enrolment", token }) });
    await first.next("ready");
    const second = await connectTestAgent(api.gatewayUrl);
    second.send({ type: "hello", payload: helloWith({ kind: "enrolment", token }) });
    expect((await second.closed).code).toBe(AgentCloseCode.unauthenticated);
    await first.close();
  });

  it("§3 answers a heartbeat with the server clock and the agent's own time echoed", async () => {
    const user = await api.signUp("Beat");
    const { agent } = await enrolledAgent(user);
    agent.send({ type: "heartbeat", payload: { sentAt: 12345 } });
    const beat = await agent.next("heartbeat");
    expect(beat.echo).toBe(12345);
    expect(Math.abs(beat.sentAt - Date.now())).toBeLessThan(5000);
    await agent.close();
  });

  it("revoking an agent disconnects it at once and refuses it after", async () => {
    const user = await api.signUp("Rev");
    const { agent, ready } = await enrolledAgent(user);
    expect((await user.request("POST", `/api/agents/${ready.agentId}/revoke`)).status).toBe(204);
    const closed = await agent.closed;
    expect(closed.code).toBe(AgentCloseCode.unauthenticated);
    expect(closed.reason).toMatch(/revoked/);
    const again = await reconnectTestAgent(api.gatewayUrl, ready);
    expect((await again.closed).code).toBe(AgentCloseCode.unauthenticated);
    expect((await user.request<{ agents: AgentView[] }>("GET", "/api/agents")).json.agents).toEqual([]);
  });

  it("edits labels, validates them, and places runs only on agents that carry the plan's labels", async () => {
    const user = await api.signUp("Lab");
    const { agent, ready } = await enrolledAgent(user);
    const bad = await user.request<ErrorBody>("PUT", `/api/agents/${ready.agentId}/labels`, {
      labels: { "bad label!": "x" },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.fields?.[0]?.path).toBe("labels.bad label!");
    const plan = await createPlan(user, { agents: { labels: { region: "eu" } } });
    const refused = await user.request<ErrorBody>("POST", `/api/plans/${plan.id}/runs`);
    expect(refused.status).toBe(409);
    expect(refused.json.error.message).toMatch(/region=eu/);
    const labelled = await user.request("PUT", `/api/agents/${ready.agentId}/labels`, { labels: { region: "eu" } });
    expect(AgentView.parse(labelled.json).labels).toEqual({ region: "eu" });
    expect((await user.request("POST", `/api/plans/${plan.id}/runs`)).status).toBe(201);
    await agent.close();
  });

  it("§2.9 stores each agent's open-file limit and engines, never gives one more clients than it holds, and refuses a run none can hold before it exists", async () => {
    const user = await api.signUp("Cap");
    const small = { openFileLimit: 1_024, clientsPerEngine: 768, maxEngines: 2 };
    const big = { openFileLimit: 1_024, clientsPerEngine: 768, maxEngines: 8 };
    const agents = [];
    for (const [hostname, capacity] of [
      ["rig-small", small],
      ["rig-big", big],
    ] as const) {
      const host = { hostname, os: "linux", arch: "x64", cores: 2, memoryBytes: 2 ** 30 };
      agents.push(await enrolTestAgent(api.gatewayUrl, user, { host, capacity }));
    }
    const listed = (await user.request<{ agents: AgentView[] }>("GET", "/api/agents")).json.agents.map((a: unknown) =>
      AgentView.parse(a),
    );
    expect(Object.fromEntries(listed.map((a: AgentView) => [a.hostname, a.capacity]))).toEqual({
      "rig-small": small,
      "rig-big": big,
    });

    // 1,536 + 6,144 = 7,680 clients at most.
    const tooBig = await createPlan(user, { load: { clients: 7_681, durationSec: 30 } });
    const refused = await user.request<ErrorBody>("POST", `/api/plans/${tooBig.id}/runs`);
    expect(refused.status).toBe(409);
    expect(refused.json.error.message).toBe(
      "The agents cannot hold this plan's 7,681 clients: rig-big up to 6,144 (8 engine processes × 768 clients, open-file limit 1,024); " +
        "rig-small up to 1,536 (2 engine processes × 768 clients, open-file limit 1,024). Raise their open-file limit (ulimit -n, systemd LimitNOFILE, " +
        "docker --ulimit nofile, the Helm chart's agent.openFileLimit; docs/scale.md), start more agents, or lower load.clients",
    );
    expect((await user.request<RunPage>("GET", "/api/runs")).json.runs).toEqual([]);

    // Split by cores (2 and 2) but never past a cap: the small rig's 1,536, the rest to the big one.
    const fits = await createPlan(user, { load: { clients: 7_000, durationSec: 30 } });
    const run = RunView.parse((await user.request("POST", `/api/plans/${fits.id}/runs`)).json);
    await api.deps.orchestrator.start(agents[0]!.ready.orgId, run.id);
    const shares = await Promise.all(agents.map(({ agent }) => agent.next("run-assignment")));
    expect(shares.map((a) => a.clients)).toEqual([1_536, 5_464]);
    for (const { agent } of agents) await agent.close();
  });

  it("§2.10 stores what each agent's owner lets it run, warns on the plan page and refuses a run no agent may take before it exists", async () => {
    const user = await api.signUp("Perm");
    const capabilities = { scripts: "none" as const, allowTargets: ["10.0.0.5:9000"] };
    const host = { hostname: "rig-7", os: "linux", arch: "x64", cores: 2, memoryBytes: 2 ** 30 };
    const { agent } = await enrolTestAgent(api.gatewayUrl, user, { host, capabilities });
    const listed = (await user.request<{ agents: AgentView[] }>("GET", "/api/agents")).json.agents.map((a: unknown) =>
      AgentView.parse(a),
    );
    expect(listed.map((a: AgentView) => a.capabilities)).toEqual([capabilities]);

    const plan = await createPlan(user);
    const reason = expect.stringMatching(
      /^No agent that matches may run this plan: rig-7 loads only 10\.0\.0\.5:9000 \(its --allow-target list\), not 127\.0\.0\.1:\d+\. Restart one with that flag/,
    );
    expect((await user.request<PlanView>("GET", `/api/plans/${plan.id}`)).json.warnings).toEqual([
      { path: "agents", message: reason },
    ]);
    const refused = await user.request<ErrorBody>("POST", `/api/plans/${plan.id}/runs`);
    expect(refused.status).toBe(409);
    expect(refused.json.error.message).toEqual(reason);
    expect((await user.request<RunPage>("GET", "/api/runs")).json.runs).toEqual([]);
    await agent.close();
  });

  it("aborting a run tells its agents to stop and refuses a second abort", async () => {
    const user = await api.signUp("Abo");
    const { agent, run } = await assignedRun(user);
    const aborted = await user.request("POST", `/api/runs/${run.id}/abort`);
    expect(aborted.status).toBe(200);
    expect(RunView.parse(aborted.json)).toMatchObject({ status: "aborted", events: [{ kind: "aborted" }] });
    expect(await agent.next("run-stop")).toMatchObject({ runId: run.id });
    expect((await user.request("POST", `/api/runs/${run.id}/abort`)).status).toBe(409);
    await agent.close();
  });

  it("an agent lost for longer than the grace period degrades the run, or aborts it when the plan says so", async () => {
    const user = await api.signUp("Lost");
    for (const onLost of ["continue", "abort"] as const) {
      const { agent, ready, run } = await assignedRun(user, { agents: { labels: {}, onLost } });
      await agent.close();
      await expect
        .poll(async () =>
          (await api.queue.getJobs(["delayed"])).some((j) => j.name === "check-agent" && j.data.runId === run.id),
        )
        .toBe(true);
      await api.deps.orchestrator.checkAgent(ready.orgId, run.id, ready.agentId); // what the delayed job does
      const after = RunView.parse((await user.request("GET", `/api/runs/${run.id}`)).json);
      expect(after.status).toBe(onLost === "abort" ? "aborted" : "degraded");
      expect(after.events[0]).toMatchObject({ kind: "agent-lost", agentId: ready.agentId });
      expect(after.events[0]?.message).toMatch(/rig-1 lost at/);
    }
  });

  it("§3 an agent silent on a dead link (no answer to the close handshake) counts as disconnected after three heartbeats, not 30 s later", async () => {
    const user = await api.signUp("Dead");
    const { agent, run } = await assignedRun(user);
    agent.ws.pause(); // reads nothing and sends nothing: the heartbeat timeout's close frame is never answered
    const lostCheckQueued = async () =>
      (await api.queue.getJobs(["delayed"])).some((j) => j.name === "check-agent" && j.data.runId === run.id);
    await expect.poll(lostCheckQueued, { timeout: 8_000, interval: 200 }).toBe(true); // heartbeats are 1 s here
    agent.ws.terminate();
  });

  it("an agent back within the grace period keeps the run going", async () => {
    const user = await api.signUp("Back");
    const { agent, ready, run } = await assignedRun(user);
    await agent.close();
    const again = await reconnectTestAgent(api.gatewayUrl, ready);
    await again.next("run-assignment");
    await api.deps.orchestrator.checkAgent(ready.orgId, run.id, ready.agentId);
    expect(RunView.parse((await user.request("GET", `/api/runs/${run.id}`)).json)).toMatchObject({
      status: "running",
      events: [],
    });
    await again.close();
  });
});

/** Reads the run's event stream as a browser would; `until` waits for a condition on what arrived. */
async function fetchLive(user: TestUser, runId: string) {
  const controller = new AbortController();
  const response = await user.open(`/api/runs/${runId}/live`, controller.signal);
  expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
  const messages: LiveMessage[] = [];
  const seqs: number[] = [];
  const listeners = new Set<() => void>();
  void readEventData(response.body!, (data) => {
    const envelope = LiveEnvelope.parse(JSON.parse(data));
    seqs.push(envelope.seq);
    messages.push(envelope.message);
    for (const listener of [...listeners]) listener();
  }).catch(() => undefined); // aborted by stop()
  return {
    messages,
    seqs,
    stop: () => controller.abort(),
    until: (condition: (messages: LiveMessage[]) => boolean) =>
      new Promise<LiveMessage[]>((resolve) => {
        const check = () => {
          if (!condition(messages)) return;
          listeners.delete(check);
          resolve(messages);
        };
        listeners.add(check);
        check();
      }),
  };
}
