import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentCloseCode } from "@throng/protocol/agent";
import { AgentView, EnrolmentTokenCreated, PlanView } from "@throng/protocol/api";
import { LiveMessage, RunSeries, RunView } from "@throng/protocol/run";
import { encodeValues } from "@throng/core/metrics/histogram";
import { connectTestAgent, helloWith } from "../testing/test-agent";
import { startTestApi, type TestApi, type TestUser } from "../testing/test-api";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ orchestration: { startDelayMs: 100, finishGraceMs: 60_000 } });
});
afterAll(async () => {
  await api?.close();
});

async function enrolmentToken(user: TestUser) {
  return EnrolmentTokenCreated.parse((await user.request("POST", "/api/enrolment-tokens")).json).token;
}

async function enrolledAgent(user: TestUser) {
  const agent = await connectTestAgent(api.gatewayUrl);
  agent.send({ type: "hello", payload: helloWith({ kind: "enrolment", token: await enrolmentToken(user) }) });
  const ready = await agent.next("ready");
  return { agent, ready };
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
    old.send({ type: "hello", payload: helloWith({ kind: "enrolment", token: await enrolmentToken(user) }, { protocolVersion: 99 }) });
    const closed = await old.closed;
    expect(closed.code).toBe(AgentCloseCode.versionUnsupported);
    expect(closed.reason).toMatch(/run throng-agent/);
  });

  it("§2 exchanges an enrolment token for a credential that works on the next connection", async () => {
    const user = await api.signUp("Hal");
    const { agent, ready } = await enrolledAgent(user);
    expect(ready.credential?.secret).toMatch(/^thr_agt_/);
    const agents = (await user.request("GET", "/api/agents")).json.agents.map((a: unknown) => AgentView.parse(a));
    expect(agents).toHaveLength(1);
    expect(agents[0]).toMatchObject({ hostname: "rig-1", cores: 2, status: "online" });
    await agent.close();
    expect(AgentView.parse((await user.request("GET", "/api/agents")).json.agents[0]).status).toBe("offline");

    const again = await connectTestAgent(api.gatewayUrl);
    again.send({ type: "hello", payload: helloWith({ kind: "credential", agentId: ready.agentId, secret: ready.credential!.secret }) });
    const second = await again.next("ready");
    expect(second.agentId).toBe(ready.agentId);
    expect(second.credential).toBeUndefined();
    const wrong = await connectTestAgent(api.gatewayUrl);
    wrong.send({ type: "hello", payload: helloWith({ kind: "credential", agentId: ready.agentId, secret: "thr_agt_wrong" }) });
    expect((await wrong.closed).code).toBe(AgentCloseCode.unauthenticated);
    await again.close();
  });

  it("§4–§6 assigns a run, stores snapshots once, streams points live and closes the run", async () => {
    const user = await api.signUp("Ivy");
    const { agent, ready } = await enrolledAgent(user);
    const plan = PlanView.parse((await user.request("POST", "/api/plans", {
      name: "p", target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
      scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 }, load: { clients: 7, durationSec: 2 },
    })).json);
    const run = RunView.parse((await user.request("POST", `/api/plans/${plan.id}/runs`)).json);
    expect(run.status).toBe("queued");
    expect(await api.queue.getJob(`start-${run.id}`)).toBeTruthy();

    const live = await fetchLive(user, run.id);
    // What the worker's start-run job does (workers/ tests run it through BullMQ).
    await api.deps.orchestrator.start(ready.orgId, run.id);
    const assignment = await agent.next("run-assignment");
    expect(assignment).toMatchObject({ runId: run.id, clients: 7, shardIndex: 0, shardCount: 1 });

    const t0 = Math.floor(assignment.startAt / 1000) * 1000;
    const snapshot = (seq: number) => ({
      runId: run.id, seq, intervalStart: t0 + seq * 1000, intervalMs: 1000, clients: 7,
      counters: { connectionsOpen: 7, connectionsOpened: seq === 0 ? 7 : 0, connectionsFailed: 0, connectionsClosed: 0,
        messagesSent: 70, messagesReceived: 70, bytesSent: 4480, bytesReceived: 1400, errors: 0 },
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
    expect(points.filter((m) => m.type === "point").map((m) => m.type === "point" && m.point.messagesReceivedPerSec)).toEqual([70, 70]);

    agent.send({ type: "shard-status", payload: { runId: run.id, state: "finished", lastSeq: 1 } });
    await expect.poll(async () => api.queue.getJob(`finish-all-shards-done-${run.id}`), { timeout: 5000 }).toBeTruthy();
    await api.deps.orchestrator.finish(ready.orgId, run.id);
    const done = RunView.parse((await user.request("GET", `/api/runs/${run.id}`)).json);
    expect(done.status).toBe("finished");
    expect(done.summary).toMatchObject({ peakConnections: 7, messagesReceived: 140, agents: 1 });
    await live.until((messages) => messages.some((m) => m.type === "run" && m.run.status === "finished"));
    live.stop();
    await agent.close();
  });

  it("resends an active assignment when the agent reconnects", async () => {
    const user = await api.signUp("Jo");
    const { agent, ready } = await enrolledAgent(user);
    const plan = PlanView.parse((await user.request("POST", "/api/plans", {
      name: "p", target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
      scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 }, load: { clients: 3, durationSec: 30 },
    })).json);
    const run = RunView.parse((await user.request("POST", `/api/plans/${plan.id}/runs`)).json);
    await api.deps.orchestrator.start(ready.orgId, run.id);
    const first = await agent.next("run-assignment");
    await agent.close();
    const again = await connectTestAgent(api.gatewayUrl);
    again.send({ type: "hello", payload: helloWith({ kind: "credential", agentId: ready.agentId, secret: ready.credential!.secret }) });
    await again.next("ready");
    expect(await again.next("run-assignment")).toEqual(first);
    await again.close();
  });

  it("ignores snapshots for a run of another organisation", async () => {
    const owner = await api.signUp("Kim");
    const intruder = await api.signUp("Lex");
    const { agent: ownerAgent, ready } = await enrolledAgent(owner);
    const plan = PlanView.parse((await owner.request("POST", "/api/plans", {
      name: "p", target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
      scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 }, load: { clients: 1, durationSec: 30 },
    })).json);
    const run = RunView.parse((await owner.request("POST", `/api/plans/${plan.id}/runs`)).json);
    await api.deps.orchestrator.start(ready.orgId, run.id);
    const { agent: other } = await enrolledAgent(intruder);
    other.send({ type: "snapshot", payload: {
      runId: run.id, seq: 0, intervalStart: Date.now(), intervalMs: 1000, clients: 1,
      counters: { connectionsOpen: 1, connectionsOpened: 1, connectionsFailed: 0, connectionsClosed: 0, messagesSent: 1, messagesReceived: 1, bytesSent: 1, bytesReceived: 1, errors: 0 },
      histograms: { rttUs: encodeValues([1000]) }, health: { cpuPercent: 1, eventLoopP99Ms: 1, rssBytes: 1 },
    } });
    await other.next("snapshot-ack");
    expect(RunSeries.parse((await owner.request("GET", `/api/runs/${run.id}/series`)).json).points).toEqual([]);
    expect((await intruder.request("GET", `/api/runs/${run.id}`)).status).toBe(404);
    await other.close();
    await ownerAgent.close();
  });
});

/** Reads the run's event stream as a browser would; `until` waits for a condition on what arrived. */
async function fetchLive(user: TestUser, runId: string) {
  const controller = new AbortController();
  const response = await user.open(`/api/runs/${runId}/live`, controller.signal);
  expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
  const messages: LiveMessage[] = [];
  const listeners = new Set<() => void>();
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const event = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const data = event.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
          if (data) messages.push(LiveMessage.parse(JSON.parse(data)));
        }
        for (const listener of [...listeners]) listener();
      }
    } catch {
      // aborted by stop()
    }
  })();
  return {
    messages,
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
