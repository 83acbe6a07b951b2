import { describe, expect, it } from "vitest";
import { PlanSpec, type PlanSpecInput } from "./plan";
import { planInput, planIssues } from "./plan-spec.test-support";

const plan = (
  scenario: PlanSpecInput["scenario"],
  slos: PlanSpecInput["slos"],
  over: Partial<PlanSpecInput> = {},
): PlanSpecInput => planInput({ scenario, load: { clients: 2, durationSec: 10 }, slos, ...over });

const PING = { kind: "ping-pong", intervalMs: 1000, messageBytes: 64 } as const;
const ECHO = { kind: "echo-flood", messageBytes: 64 } as const;
const ROOM = { kind: "movement-sync", roomSize: 2 } as const;
const SCRIPT: PlanSpecInput["scenario"] = {
  kind: "script",
  script: { path: "bot.mjs" },
  metrics: [{ name: "join-ms", kind: "histogram" }],
};

describe("a plan's SLOs name only what its scenario measures (the schema says so, with its other problems)", () => {
  it("input that is no plan at all is refused, not thrown on (an agent reads a frame whose plan is missing)", () => {
    for (const input of [undefined, null, 7, "plan"]) expect(PlanSpec.safeParse(input).success).toBe(false);
  });

  it("refuses round trips on a login storm, login time outside one, broadcasts on ping-pong and loss over TCP, naming why", () => {
    expect(
      planIssues(
        plan({ kind: "login-storm", login: true }, [
          { metric: "rtt-p99-ms", below: 50 },
          { metric: "rtt-corrected-p99-ms", below: 50 },
        ]),
      ),
    ).toEqual([
      "slos.0.metric: rtt-p99-ms: round trips are measured only by ping-pong and echo-flood plans",
      "slos.1.metric: rtt-corrected-p99-ms: the corrected round trip is measured only by ping-pong plans (from each ping's intended send time)",
    ]);
    expect(
      planIssues(
        plan(PING, [
          { metric: "login-p99-ms", below: 50 },
          { metric: "broadcast-p99-ms", below: 50 },
          { metric: "loss-rate", below: 0.01 },
        ]),
      ),
    ).toEqual([
      "slos.0.metric: login-p99-ms: login time is measured only by login-storm plans",
      "slos.1.metric: broadcast-p99-ms: broadcast latency is measured only by movement-sync and script plans",
      "slos.2.metric: loss-rate: loss is measured only by movement-sync plans, and by ping-pong and echo-flood over UDP",
    ]);
  });

  it("takes broadcast latency on a script plan (ctx.broadcast times it as movement-sync does), loss on movement-sync and over UDP", () => {
    expect(planIssues(plan(SCRIPT, [{ metric: "broadcast-p99-ms", below: 50 }]))).toEqual([]);
    expect(planIssues(plan(ROOM, [{ metric: "loss-rate", below: 0.01 }]))).toEqual([]);
    expect(
      planIssues(
        plan(PING, [{ metric: "loss-rate", below: 0.01 }], {
          target: { protocol: "udp", host: "127.0.0.1", port: 7072 },
        }),
      ),
    ).toEqual([]);
  });

  it("refuses a script metric the plan does not declare, naming what to add", () => {
    expect(planIssues(plan(SCRIPT, [{ metric: "script:leave-ms-p99", below: 50 }]))).toEqual([
      'slos.0.metric: script:leave-ms-p99: the plan declares no script metric "leave-ms": add { name: "leave-ms", kind: "histogram" } to scenario.metrics',
    ]);
  });

  it("says every problem of a first save at once: a blank name, a bad load and an SLO the scenario never measures", () => {
    const input = plan({ kind: "login-storm" }, [{ metric: "rtt-p99-ms", below: 50 }], {
      name: "",
      load: { clients: 0, durationSec: 10 },
    });
    expect(planIssues(input)).toEqual([
      "name: give the plan a name",
      "load.clients: must be at least 1",
      "slos.0.metric: rtt-p99-ms: round trips are measured only by ping-pong and echo-flood plans",
    ]);
  });

  it("still reads the plans saved before that name what their runs never measure (judged no data), as the older rule took them", () => {
    const udp = { target: { protocol: "udp", host: "127.0.0.1", port: 7072 } } as const;
    expect(planIssues(plan(ROOM, [{ metric: "rtt-p99-ms", below: 50 }]))).toEqual([]);
    expect(planIssues(plan(SCRIPT, [{ metric: "rtt-p50-ms", below: 50 }]))).toEqual([]);
    expect(planIssues(plan(ECHO, [{ metric: "rtt-corrected-p99-ms", below: 50 }]))).toEqual([]);
    expect(planIssues(plan({ kind: "login-storm" }, [{ metric: "login-p99-ms", below: 50 }]))).toEqual([]);
    expect(planIssues(plan(SCRIPT, [{ metric: "loss-rate", below: 0.01 }], udp))).toEqual([]);
  });
});
