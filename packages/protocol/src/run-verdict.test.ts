import { describe, expect, it } from "vitest";
import { PlanSpec, type PlanSpecInput } from "./plan";
import { capacityEstimate } from "./capacity-estimate.test-support";
import { planInput } from "./plan-spec.test-support";
import type { RunSummary } from "./run";
import { judgeRun, searchEvidence, type RunEvidence } from "./run-verdict";
import type { SeriesPoint } from "./snapshot";

const T0 = 1_800_000_000;

const plan = (over: Partial<PlanSpecInput> = {}) =>
  PlanSpec.parse(
    planInput({ load: { clients: 200, durationSec: 12 }, slos: [{ metric: "rtt-p99-ms", below: 50 }], ...over }),
  );

/** The round trips of a second (or run) that sent `sent` messages: 1 ms p50, 3 ms p99, 4 ms max; none when nothing was sent. */
const roundTrips = (sent: number) =>
  sent > 0 ? { rttP50Ms: 1, rttP99Ms: 3, rttMaxMs: 4 } : { rttP50Ms: null, rttP99Ms: null, rttMaxMs: null };

/** A second of a 200-client ping-pong at 200 msg/s; `sent` below the schedule is a load that stopped sending. */
const second = (i: number, over: Partial<SeriesPoint> = {}): SeriesPoint => {
  const sent = over.messagesSentPerSec ?? 200;
  return {
    t: T0 + i,
    agents: 1,
    clients: 200,
    connections: 200,
    messagesSentPerSec: sent,
    messagesReceivedPerSec: sent,
    bytesSentPerSec: 0,
    bytesReceivedPerSec: 0,
    errors: 0,
    scheduledSends: 200,
    ...roundTrips(sent),
    ...over,
  };
};

const summaryOf = (seconds: SeriesPoint[], over: Partial<RunSummary> = {}): RunSummary => {
  const sent = seconds.reduce((n, s) => n + s.messagesSentPerSec, 0);
  return {
    agents: 1,
    peakClients: 200,
    peakConnections: 200,
    durationSec: seconds.length,
    messagesSent: sent,
    messagesReceived: sent,
    messagesPerSec: sent / Math.max(1, seconds.length),
    connectionsFailed: 0,
    connectionsOpened: 200,
    errors: 0,
    ...roundTrips(sent),
    ...over,
  };
};

/** An automatic capacity search of up to 400 clients, from 50 in 5-second steps. */
const searchPlan = (more: { minClients?: number } = {}) =>
  plan({
    load: {
      clients: 400,
      durationSec: 60,
      shape: { kind: "step-up", mode: "auto", startClients: 50, stepDurationSec: 5, ...more },
    },
  });

const evidence = (seconds: SeriesPoint[], over: Partial<RunEvidence> = {}): RunEvidence => ({
  spec: plan(),
  ended: "finished",
  problems: [],
  summary: summaryOf(seconds),
  seconds,
  startSecond: T0,
  ...over,
});

const run = (n: number, at: (i: number) => Partial<SeriesPoint> = () => ({})) =>
  Array.from({ length: n }, (_, i) => second(i, at(i)));

/**
 * Two agents, `clients` pinging once a second between them, and agent b's half frozen over seconds [from, until): its
 * seconds arrived at once on resume, the one at `catchUpAt` carrying the freeze's schedule, skips and a few sends,
 * the others nothing; its connections stayed open.
 */
function frozenAgentRun(
  n: number,
  clients: number,
  freeze: { from: number; until: number; catchUpAt: number; sent: number; scheduled: number; skipped: number },
) {
  const half = clients / 2;
  return run(n, (i) => {
    const frozen = i >= freeze.from && i < freeze.until;
    const catchUp = i === freeze.catchUpAt;
    return {
      clients,
      connections: clients,
      agents: 2,
      messagesSentPerSec: frozen ? half + (catchUp ? freeze.sent : 0) : clients,
      scheduledSends: frozen ? half + (catchUp ? freeze.scheduled : 0) : clients,
      ...(frozen ? { skippedSends: catchUp ? freeze.skipped : 0 } : {}),
    };
  });
}

/** Agents a and b's health in each of the run's seconds. */
const twoAgentsHealth = (
  seconds: readonly SeriesPoint[],
  health: (agentId: string, i: number) => { eventLoopP99Ms: number; eventLoopMaxMs?: number },
) => seconds.flatMap((p, i) => ["a", "b"].map((agentId) => ({ t: p.t, agentId, ...health(agentId, i) })));

describe("run verdict", () => {
  it("passes a run whose load ran as planned for its planned time and met every SLO", () => {
    const verdict = judgeRun(evidence(run(12)));
    expect(verdict).toMatchObject({ outcome: "passed", passed: true, reasons: [] });
    expect(verdict.slos[0]).toMatchObject({ status: "met", passed: true });
    expect(verdict.load).toMatchObject({ plannedSeconds: 12, measuredSeconds: 12, shortSeconds: 0 });
  });

  it("does not pass a run whose load stopped sending at 8 s while connections stayed up (the timer-wheel stall)", () => {
    const seconds = run(12, (i) => (i >= 8 ? { messagesSentPerSec: 0 } : {}));
    const verdict = judgeRun(evidence(seconds));
    expect(verdict.passed).toBe(false);
    expect(verdict.outcome).toBe("incomplete");
    expect(verdict.reasons.join("\n")).toMatch(/fell short of its schedule/);
    expect(verdict.slos[0]).toMatchObject({ status: "no-data", passed: false });
  });

  it("never calls an SLO met on the seconds before the server died: the seconds no client was connected are not judged (issue 27 §2)", () => {
    // 4 healthy seconds of 12, then every connection dropped: the agents report 200 clients, 0 connected, no sends due.
    const seconds = run(12, (i) => (i >= 4 ? { connections: 0, messagesSentPerSec: 0, scheduledSends: 0 } : {}));
    const verdict = judgeRun(evidence(seconds));
    expect(verdict.passed).toBe(false);
    expect(verdict.slos[0]).toMatchObject({
      metric: "rtt-p99-ms",
      status: "no-data",
      passed: false,
      note: "not judged for 7 of 10 s under load: no client was connected",
    });
    expect(verdict.load).toMatchObject({ minConnectedShare: 0, leastConnectedAt: T0 + 4 });
  });

  it("passes clients started together every 400 ms whose seconds swing 20/30 with their phase: on schedule, not short (the baseline gate's flake)", () => {
    const spec = plan({
      scenario: { kind: "ping-pong", intervalMs: 400, messageBytes: 64 },
      load: { clients: 10, durationSec: 12 },
    });
    const at = (i: number) => ({
      clients: 10,
      connections: 10,
      scheduledSends: 25,
      messagesSentPerSec: i % 2 ? 22 : 28,
    });
    const verdict = judgeRun(evidence(run(12, at), { spec }));
    expect(verdict.load).toMatchObject({ shortSeconds: 0 });
    expect(verdict.outcome).toBe("passed");
    // A second below what every second holds (2 sends a client) is still short.
    const stalled = judgeRun(
      evidence(
        run(12, (i) => ({ ...at(i), ...(i >= 6 && i < 9 ? { messagesSentPerSec: 12 } : {}) })),
        { spec },
      ),
    );
    expect(stalled.load!.shortSeconds).toBe(3);
    expect(stalled.outcome).toBe("incomplete");
  });

  it("does not pass a run that fell to half its send rate", () => {
    const verdict = judgeRun(evidence(run(12, (i) => (i >= 9 ? { messagesSentPerSec: 100 } : {}))));
    expect(verdict.outcome).toBe("incomplete");
    expect(verdict.load!.shortSeconds).toBe(2);
  });

  it("does not pass a run that measured 2 s of a 20 s plan after its only agent was lost", () => {
    const spec = plan({ load: { clients: 200, durationSec: 20 } });
    const verdict = judgeRun(evidence(run(2), { spec, problems: ["agent a1 was lost mid-run"] }));
    expect(verdict.outcome).toBe("incomplete");
    expect(verdict.reasons).toEqual(
      expect.arrayContaining(["agent a1 was lost mid-run", "measurements cover 2 of the 20 planned seconds"]),
    );
  });

  it("marks an aborted run aborted, never passed, even with every SLO met", () => {
    const verdict = judgeRun(evidence(run(5), { ended: "aborted", problems: ["aborted by ann@example.com"] }));
    expect(verdict).toMatchObject({ outcome: "aborted", passed: false });
  });

  it("says breached when an SLO broke over enough data", () => {
    const seconds = run(12);
    const verdict = judgeRun(evidence(seconds, { summary: summaryOf(seconds, { rttP99Ms: 80 }) }));
    expect(verdict.outcome).toBe("breached");
    expect(verdict.slos[0]).toMatchObject({ status: "breached", value: 80 });
  });

  it("gives a loss-rate SLO no data, not 0, when nothing was delivered and the server dropped every client", () => {
    const spec = plan({
      target: { protocol: "udp", host: "127.0.0.1", port: 7071 },
      slos: [{ metric: "loss-rate", below: 0.01 }],
    });
    const seconds = run(12, (i) => (i >= 2 ? { connections: 0, messagesSentPerSec: 0, lost: 0 } : { lost: 0 }));
    const verdict = judgeRun(evidence(seconds, { spec, summary: summaryOf(seconds, { lost: 0, messagesSent: 0 }) }));
    expect(verdict.slos[0]).toMatchObject({ status: "no-data", value: null, passed: false });
    expect(verdict.outcome).toBe("incomplete");
    expect(verdict.reasons.join("\n")).toMatch(/only 0 of 200 clients were connected/);
  });

  it("judges a capacity search by its estimate, not by the whole run's SLOs", () => {
    const spec = searchPlan();
    const seconds = run(60);
    const breachedRun = summaryOf(seconds, { rttP99Ms: 90 });
    expect(judgeRun(evidence(seconds, { spec, summary: breachedRun, capacity: capacityEstimate() })).outcome).toBe(
      "passed",
    );
    const invalid = judgeRun(
      evidence(seconds, {
        spec,
        capacity: capacityEstimate({ valid: false, problems: ["the server did not recover"] }),
      }),
    );
    expect(invalid).toMatchObject({ outcome: "incomplete", passed: false });
    expect(invalid.reasons).toContain("the server did not recover");
    const gated = searchPlan({ minClients: 350 });
    expect(judgeRun(evidence(seconds, { spec: gated, capacity: capacityEstimate() })).outcome).toBe("breached");
    // No level held in any try, no agent the bottleneck: a definite answer, not missing evidence.
    const broke = searchEvidence(
      capacityEstimate({
        clients: null,
        valid: false,
        problems: ["the first step broke an SLO in all 3 tries"],
        steps: [
          {
            step: 0,
            clients: 50,
            seconds: 4,
            throughputPerSec: 10,
            rttP99Ms: 90,
            slos: [],
            held: false,
            saturatedAgents: [],
          },
        ],
      }),
    );
    expect(judgeRun(evidence(seconds, { spec, capacity: broke })).outcome).toBe("breached");
  });

  it("judges a search that ended early on purpose against the seconds it planned up to its end", () => {
    const spec = searchPlan();
    const capacity = capacityEstimate({ breakingSlos: [] });
    expect(judgeRun(evidence(run(30), { spec, capacity, endedEarlyAtSecond: T0 + 30 })).outcome).toBe("passed");
  });

  it("warns, without failing, when the agents' host had heavy CPU steal", () => {
    const verdict = judgeRun(
      evidence(run(12), {
        agentHealth: [12, 15, 20, 30].map((stealPercent, i) => ({
          t: T0 + i,
          agentId: "a1",
          eventLoopP99Ms: 2,
          stealPercent,
        })),
      }),
    );
    expect(verdict.outcome).toBe("passed");
    expect(verdict.warnings.join("\n")).toMatch(/heavy CPU steal/);
  });

  it("does not pass a ping-pong whose pings a plain echo server sent back unmatched, even without SLOs: skipped sends are not sends, and it says to check match", () => {
    // The issue's run: each client's first ping echoed as {"type":"ping",...}, never a pong; every later due ping skipped.
    const spec = plan({
      slos: [],
      load: { clients: 1, durationSec: 8 },
      scenario: { kind: "ping-pong", intervalMs: 200, messageBytes: 64 },
    });
    const echoed = (i: number): SeriesPoint =>
      second(i, {
        clients: 1,
        connections: 1,
        scheduledSends: 5,
        messagesSentPerSec: i === 0 ? 1 : 0,
        messagesReceivedPerSec: i === 0 ? 1 : 0,
        skippedSends: i === 0 ? 4 : 5,
        rttP50Ms: null,
        rttP99Ms: null,
        rttMaxMs: null,
      });
    const seconds = Array.from({ length: 8 }, (_, i) => echoed(i));
    const summary = summaryOf(seconds, {
      messagesSent: 1,
      messagesReceived: 1,
      roundTrips: 0,
      rttP50Ms: null,
      rttP99Ms: null,
      rttMaxMs: null,
      skippedSends: 39,
      scheduledSends: 40,
    });
    const verdict = judgeRun(evidence(seconds, { spec, summary }));
    expect(verdict).toMatchObject({ outcome: "incomplete", passed: false });
    expect(verdict.load).toMatchObject({ sentSends: 0, skippedSends: 30, scheduledSends: 30 });
    const reasons = verdict.reasons.join("\n");
    expect(reasons).toMatch(
      /the ping-pong scenario measured no round trips: 1 message sent, 1 message received; received 1 message, none matched the ping's seq by the default match .*: check `match`/,
    );
    expect(reasons).toMatch(
      /fell short of its schedule: 0 of 30 scheduled messages sent \(30 more skipped: not sends\)/,
    );
    expect(verdict.warnings.join("\n")).not.toMatch(/server answered slower|replies came slower/);
  });

  it("does not pass a run whose one agent of two stood still 20 s: its seconds with nothing scheduled count against the plan, and the agent is blamed, not the server", () => {
    const spec = plan({ slos: [], load: { clients: 400, durationSec: 40 } });
    // Agent b froze from second 10 to 29 and its catch-up second was the first of them.
    const freeze = { from: 10, until: 30, catchUpAt: 10, sent: 223, scheduled: 4024, skipped: 3801 };
    const seconds = frozenAgentRun(40, 400, freeze);
    const agentHealth = twoAgentsHealth(seconds, (agentId, i) => ({
      eventLoopP99Ms: agentId === "b" && i === 10 ? 20_010 : 3,
    }));
    const verdict = judgeRun(evidence(seconds, { spec, agentHealth }));
    expect(verdict).toMatchObject({ outcome: "incomplete", passed: false });
    expect(verdict.load!.scheduledSends).toBe(38 * 400); // the steady seconds 1–38, each due its 400 clients' pings
    expect(verdict.reasons.join("\n")).toMatch(
      /fell short of its schedule: .* agent b stood still \(its event loop was held 20\.0 s at /,
    );
    const warnings = verdict.warnings.join("\n");
    expect(warnings).toMatch(
      /3801 sends were skipped while agent b stood still .*: the agent fell behind its own schedule, not the server/,
    );
    expect(warnings).not.toMatch(/server answered slower|replies came slower/);
  });

  it("names an agent that stood still when only its longest hold shows it: the stall was one sample of the second after its catch-up, under its p99", () => {
    const spec = plan({ slos: [], load: { clients: 20, durationSec: 30 } });
    // Agent b froze from second 10 to 21; on resume its monitor recorded the 12 s hold after the catch-up second was
    // sampled, as one of the next second's hundred samples (the CI run's agent-freeze: p99 0.31 ms).
    const freeze = { from: 10, until: 22, catchUpAt: 21, sent: 3, scheduled: 121, skipped: 118 };
    const seconds = frozenAgentRun(30, 20, freeze);
    const agentHealth = twoAgentsHealth(seconds, (agentId, i) => ({
      eventLoopP99Ms: 0.31,
      eventLoopMaxMs: agentId === "b" && i === 22 ? 12_004 : 2,
    }));
    const verdict = judgeRun(evidence(seconds, { spec, agentHealth }));
    expect(verdict).toMatchObject({ outcome: "incomplete", passed: false });
    expect(verdict.reasons.join("\n")).toMatch(
      /fell short of its schedule: .* agent b stood still \(its event loop was held 12\.0 s at /,
    );
    expect(verdict.warnings.join("\n")).not.toMatch(/server answered slower|replies came slower/);
    // The same evidence from an agent that reports only its p99 cannot name the stall.
    const p99Only = agentHealth.map(({ eventLoopMaxMs: _, ...second }) => second);
    expect(judgeRun(evidence(seconds, { spec, agentHealth: p99Only })).reasons.join("\n")).not.toContain("stood still");
  });

  it("blames slow replies, not the agent, when a healthy agent skipped sends whose previous message was unanswered", () => {
    const seconds = run(12, (i) => (i >= 2 ? { messagesSentPerSec: 120, skippedSends: 80 } : {}));
    const verdict = judgeRun(
      evidence(seconds, { agentHealth: seconds.map((p) => ({ t: p.t, agentId: "a", eventLoopP99Ms: 4 })) }),
    );
    expect(verdict.outcome).toBe("incomplete");
    expect(verdict.reasons.join("\n")).toMatch(
      /fell short of its schedule: .*: the replies came slower than the send interval: the server, or the network to it/,
    );
    expect(verdict.warnings.join("\n")).toMatch(
      /sends were skipped because the client's previous message was still unanswered \(the replies came slower/,
    );
  });

  it("compares connections with the plan's clients, not with the clients of the agents that reported: one agent of two gone 20 s is not all connected", () => {
    const spec = plan({ slos: [], load: { clients: 200, durationSec: 40 } });
    const seconds = run(40, (i) =>
      i >= 10 && i < 30 ? { clients: 100, connections: 100, messagesSentPerSec: 100, scheduledSends: 100 } : {},
    );
    const verdict = judgeRun(evidence(seconds, { spec }));
    expect(verdict.outcome).toBe("incomplete");
    expect(verdict.load!.minConnectedShare).toBe(0.5);
    expect(verdict.reasons.join("\n")).toMatch(
      /only 100 of 200 clients were connected at .* \(the agents that reported that second held 100\)/,
    );
  });

  it("takes an automatic search's planned clients from its steps, and leaves its broken steps' skipped sends out of the schedule", () => {
    const spec = plan({
      slos: [{ metric: "rtt-p99-ms", below: 50 }],
      load: {
        clients: 400,
        durationSec: 20,
        shape: { kind: "step-up", mode: "auto", startClients: 100, stepDurationSec: 10 },
      },
    });
    // Step 0 held at 100 clients; step 1 (200 clients) broke: the server answered slower than the interval, so half the pings were skipped.
    const seconds = run(20, (i) =>
      i < 10
        ? { step: 0, clients: 100, connections: 100, messagesSentPerSec: 100, scheduledSends: 100 }
        : {
            step: 1,
            clients: 200,
            connections: 200,
            messagesSentPerSec: 100,
            scheduledSends: 200,
            skippedSends: 100,
            rttP99Ms: 900,
          },
    );
    const capacity = {
      valid: true,
      clients: 100,
      problems: [],
      steps: [
        { step: 0, clients: 100, held: true },
        { step: 1, clients: 200, held: false },
      ],
    };
    const verdict = judgeRun(evidence(seconds, { spec, capacity }));
    expect(verdict.reasons).toEqual([]);
    expect(verdict.outcome).toBe("passed");
    // Had the first step's agents connected only half its level, the steps' level says so.
    const half = seconds.map((p) =>
      p.step === 0 ? { ...p, connections: 50, messagesSentPerSec: 50, scheduledSends: 50 } : p,
    );
    expect(judgeRun(evidence(half, { spec, capacity })).reasons.join("\n")).toMatch(
      /only 50 of 100 clients were connected/,
    );
  });
});
