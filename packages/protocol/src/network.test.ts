import { describe, expect, it } from "vitest";
import { placeCohorts } from "./network";
import { planIssues } from "./plan-spec.test-support";

const base = {
  name: "cohorts",
  target: { protocol: "udp", host: "127.0.0.1", port: 9000 },
  scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 },
  load: { clients: 1000, durationSec: 10 },
};

describe("network cohorts: which client is in which cohort", () => {
  it("gives each cohort exactly its share of the run's clients, by share or by count", () => {
    const placement = placeCohorts([{ share: 0.3 }, { clients: 55 }], 1000);
    expect(placement.counts).toEqual([300, 55]);
    const counts = [0, 0, 0];
    for (let client = 0; client < 1000; client += 1) counts[placement.cohortOf(client) + 1]! += 1;
    expect(counts).toEqual([645, 300, 55]);
  });

  it("spreads a cohort along the client numbers: every room of 10 holds 2 to 4 of a 30% cohort, not whole rooms of it", () => {
    const placement = placeCohorts([{ share: 0.3 }], 200);
    for (let room = 0; room < 20; room += 1) {
      const inCohort = Array.from({ length: 10 }, (_, i) => placement.cohortOf(room * 10 + i)).filter(
        (c) => c === 0,
      ).length;
      expect(inCohort).toBeGreaterThanOrEqual(2);
      expect(inCohort).toBeLessThanOrEqual(4);
    }
  });

  it("places a client by its run-wide number alone: an agent holding clients 500-999 agrees with one holding them all", () => {
    const whole = placeCohorts([{ share: 0.25 }, { share: 0.25 }], 1000);
    const again = placeCohorts([{ share: 0.25 }, { share: 0.25 }], 1000);
    for (let client = 500; client < 1000; client += 1) expect(again.cohortOf(client)).toBe(whole.cohortOf(client));
  });

  it("puts no client in a cohort when the plan has none", () => {
    expect(placeCohorts([], 10).cohortOf(3)).toBe(-1);
  });
});

describe("network cohorts in the plan schema", () => {
  /** What the schema refuses in the base plan given these cohorts (and `extra` top-level fields). */
  const issues = (network: unknown, extra: Record<string, unknown> = {}) => planIssues({ ...base, ...extra, network });

  it("accepts a cohort with every condition", () => {
    const result = issues([
      {
        name: "mobile",
        share: 0.3,
        delayMs: 100,
        jitterMs: 30,
        lossPercent: 5,
        duplicatePercent: 1,
        reorderPercent: 1,
        bandwidthKbps: 2000,
        direction: "both",
      },
    ]);
    expect(result).toEqual([]);
  });

  it.each([
    [
      "a cohort with both share and clients",
      [{ name: "a", share: 0.5, clients: 3 }],
      "network.0.share: give either share (a part of the clients, e.g. 0.3) or clients (a count), not both",
    ],
    [
      "a reorder without delay",
      [{ name: "a", share: 0.5, reorderPercent: 5 }],
      "network.0.reorderPercent: a reordered packet overtakes delayed ones: give delayMs too",
    ],
    [
      "a repeated name",
      [
        { name: "a", share: 0.5 },
        { name: "a", share: 0.1 },
      ],
      'network.1.name: "a" is named twice',
    ],
    [
      "more than all the clients",
      [
        { name: "a", share: 0.6 },
        { name: "b", clients: 500 },
      ],
      "network: the cohorts take 110% of load.clients (1000): at most 100%",
    ],
  ])("refuses %s, naming the field", (_, network, issue) => {
    expect(issues(network)).toEqual([issue]);
  });

  it("accepts an SLO scoped to one of the plan's cohorts, and refuses one naming a cohort the plan does not have", () => {
    const slos = (cohort: string) => ({
      slos: [
        { metric: "rtt-p99-ms", below: 50 },
        { metric: "rtt-p99-ms", below: 300, cohort },
      ],
    });
    expect(issues([{ name: "mobile", share: 0.3 }], slos("mobile"))).toEqual([]);
    expect(issues([{ name: "mobile", share: 0.3 }], slos("wifi"))).toEqual([
      'slos.1.cohort: "wifi" is not a cohort of this plan: name one of plan.network\'s cohorts (mobile), or leave cohort out to judge the whole run',
    ]);
    expect(planIssues({ ...base, ...slos("mobile") })).toEqual([
      'slos.1.cohort: "mobile" is not a cohort of this plan: name a cohort of plan.network, which has none, or leave cohort out to judge the whole run',
    ]);
  });

  it("refuses more than 8 cohorts, and cohorts on a script scenario", () => {
    const nine = Array.from({ length: 9 }, (_, i) => ({ name: `c${i}`, share: 0.1 }));
    expect(issues(nine)).toEqual(["network: at most 8 cohorts"]);
    const script = issues([{ name: "a", share: 0.5 }], { scenario: { kind: "script", script: { path: "x.mjs" } } });
    expect(script[0]).toMatch(/^network: a script opens its own sockets/);
  });
});
