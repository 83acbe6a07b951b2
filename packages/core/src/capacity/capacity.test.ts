import { describe, expect, it } from "vitest";
import type { SnapshotRow } from "@throng/db/repos/snapshots";
import type { Slo } from "@throng/protocol/plan";
import { encodeValues } from "../metrics/histogram";
import { measureStep } from "@throng/wire/capacity-step";
import { analyzeCapacity } from "./capacity";

/** A synthetic server: throughput = 10 msg/s per client up to 400 clients, flat after; p99 climbs past 300. */
function stepRows(step: number, clients: number, seconds = 5, saturated = false): SnapshotRow[] {
  const throughput = Math.min(clients, 400) * 10;
  const p99Us = clients <= 300 ? 5_000 : 5_000 + (clients - 300) * 1_000;
  return Array.from({ length: seconds }, (_, i) => ({
    agentId: "a1",
    seq: step * 100 + i,
    second: step * 100 + i,
    intervalMs: 1000,
    clients,
    step,
    counters: {
      connectionsOpen: clients,
      connectionsOpened: i === 0 ? clients : 0,
      connectionsFailed: 0,
      connectionsClosed: 0,
      messagesSent: throughput,
      messagesReceived: throughput,
      bytesSent: 0,
      bytesReceived: 0,
      errors: 0,
    },
    rttHist: encodeValues([...Array(98).fill(1_000), p99Us, p99Us]),
    histograms: {},
    health: {
      cpuPercent: saturated ? 99 : 20,
      eventLoopP99Ms: 1,
      rssBytes: 1,
      saturated,
      ...(saturated ? { saturatedReason: "cpu 99%" } : {}),
    },
  }));
}

const slos: Slo[] = [{ metric: "rtt-p99-ms", below: 50 }];

/** The load of an automatic step-up search: from 100 clients in 5-second steps, up to 450. */
function autoSearchLoad(more: { minClients?: number } = {}) {
  return {
    clients: 450,
    durationSec: 600,
    rampUpSec: 0,
    shape: { kind: "step-up" as const, mode: "auto" as const, startClients: 100, stepDurationSec: 5, ...more },
  };
}

describe("capacity estimate", () => {
  it("is the last step below the first break, with the breaking SLO, the knee and a USL fit", () => {
    const rows = [100, 200, 300, 350, 400, 450, 500].flatMap((clients, step) => stepRows(step, clients));
    const estimate = analyzeCapacity(rows, slos)!;
    expect(estimate.clients).toBe(300); // 350 clients: p99 = 55 ms
    expect(estimate.breakingStep).toBe(3);
    expect(estimate.breakingSlos).toEqual(["rtt-p99-ms"]);
    expect(estimate.kneeClients).toBe(400);
    expect(estimate.valid).toBe(true);
    expect(estimate.usl?.rSquared).toBeGreaterThan(0.8);
    expect(estimate.sentence).toBe(
      "Holds 300 clients while meeting rtt-p99-ms < 50; broke at 350 clients on rtt-p99-ms.",
    );
  });

  it("is not valid when an agent was saturated in a deciding step, and says which", () => {
    const rows = [...stepRows(0, 100), ...stepRows(1, 200), ...stepRows(2, 350, 5, true)];
    const estimate = analyzeCapacity(rows, slos)!;
    expect(estimate.valid).toBe(false);
    expect(estimate.problems).toEqual(["agent a1 was saturated at 350 clients (cpu 99%)"]);
    expect(estimate.sentence).toMatch(/^Not a valid estimate/);
  });

  it("calls an unbroken search a lower bound, and a first-step break a ceiling", () => {
    expect(analyzeCapacity([...stepRows(0, 100), ...stepRows(1, 200)], slos)!.sentence).toMatch(/lower bound/);
    const broken = analyzeCapacity(stepRows(0, 400), slos)!;
    expect(broken.clients).toBeNull();
    expect(broken.sentence).toMatch(/below 400 clients/);
  });

  it("automatic search: the largest held step below every broken one, with coarse and fine phases", () => {
    const load = autoSearchLoad();
    const levels = [100, 150, 200, 250, 300, 350, 310, 320, 330, 340];
    const rows = levels.flatMap((clients, step) => stepRows(step, clients));
    const estimate = analyzeCapacity(rows, slos, load)!;
    expect(estimate.clients).toBe(340); // every fine step held: 340 clients, p99 45 ms
    expect(estimate.breakingStep).toBe(5);
    expect(estimate.steps.map((s) => s.phase)).toEqual([...Array(6).fill("coarse"), ...Array(4).fill("fine")]);
    expect(estimate.sentence).toBe(
      "Holds 340 clients while meeting rtt-p99-ms < 50; broke at 350 clients on rtt-p99-ms. Searched coarse steps of 50, then 10 between 300 and 350.",
    );
    expect(estimate.kneeClients).toBeNull(); // throughput grows with clients up to 400, past every step

    const tighter = analyzeCapacity(
      rows.filter((r) => r.step! <= 8),
      [{ metric: "rtt-p99-ms", below: 30 }],
      load,
    )!;
    expect(tighter.clients).toBe(320); // 330 clients: p99 35 ms, the fine break
    expect(tighter.breakingStep).toBe(8);
    expect(tighter.sentence).toMatch(
      /broke at 330 clients on rtt-p99-ms\. Searched coarse steps of 50, then 10 between 300 and 350\.$/,
    );
  });

  it("automatic search: settle steps back at the last held level are marked, and count neither for nor against the estimate", () => {
    const load = autoSearchLoad();
    const levels = [100, 150, 200, 250, 300, 350, 300, 300, 310, 320, 330, 340];
    // The first settle step still drains the overload of 350 clients: its p99 breaks the SLO at 300 clients.
    const backlog = encodeValues([...Array(90).fill(1_000), ...Array(10).fill(80_000)]);
    const rows = levels.flatMap((clients, step) =>
      stepRows(step, clients).map((r) =>
        step === 6 ? { ...r, rttHist: backlog, counters: { ...(r.counters as object), messagesReceived: 9_000 } } : r,
      ),
    );
    const estimate = analyzeCapacity(rows, slos, load)!;
    expect(estimate.steps.map((s) => s.phase)).toEqual([
      ...Array(6).fill("coarse"),
      "settle",
      "settle",
      ...Array(4).fill("fine"),
    ]);
    expect(estimate.steps[6]!.held).toBe(false);
    expect(estimate.clients).toBe(340);
    expect(estimate.recovered).toBe(true);
    expect(estimate.breakingStep).toBe(5);
    expect(estimate.sentence).toMatch(
      /Searched coarse steps of 50, then 10 between 300 and 350 \(after 2 settle steps back at 300 while the server recovered\)\.$/,
    );
    // The settle step's drained backlog (9,000 msg/s at 300 clients) is no point of the throughput curve.
    expect(estimate.usl?.rSquared).toBeGreaterThan(0.8);
  });

  it("judges a step on its steady seconds: a connect spike while its connections were still opening does not break it", () => {
    // 20 clients; the connections open slowly (8 by the first second's end, all 20 only by the second's), and the
    // second second's round trips carry the connect spike: 10 of 100 at 500 ms. The seconds after are fine.
    const spike = encodeValues([...Array(90).fill(1_000), ...Array(10).fill(500_000)]);
    const rows = stepRows(0, 20).map((r, i) => {
      const counters = r.counters as Record<string, number>;
      if (i === 0) return { ...r, counters: { ...counters, connectionsOpen: 8 } };
      return i === 1 ? { ...r, rttHist: spike } : r;
    });
    const step = measureStep(0, rows, slos);
    expect(step.seconds).toBe(3);
    expect(step.held).toBe(true);
    // Left out only the first second, the spike's 10 of 400 round trips put p99 at 500 ms.
    expect(
      measureStep(
        0,
        rows.map((r, i) => (i === 0 ? { ...r, counters: { ...(r.counters as object), connectionsOpen: 20 } } : r)),
        slos,
      ).held,
    ).toBe(false);
  });

  it("automatic search: a first level held again after it broke is shown as a retry, and its broken try counts neither way", () => {
    const load = autoSearchLoad();
    const transient = encodeValues([...Array(90).fill(1_000), ...Array(10).fill(80_000)]);
    const levels = [100, 100, 150, 200, 250, 300, 350, 300, 310, 320, 330, 340];
    const rows = levels.flatMap((clients, step) =>
      stepRows(step, clients).map((r) => (step === 0 ? { ...r, rttHist: transient } : r)),
    );
    const estimate = analyzeCapacity(rows, slos, load)!;
    expect(estimate.steps.map((s) => [s.clients, s.held, s.retry ?? false])).toEqual([
      [100, false, false],
      [100, true, true],
      ...levels.slice(2).map((c) => [c, c < 350, false]),
    ]);
    expect(estimate.steps.map((s) => s.phase)).toEqual([
      ...Array(7).fill("coarse"),
      "settle",
      ...Array(4).fill("fine"),
    ]);
    expect(estimate.clients).toBe(340);
    expect(estimate.valid).toBe(true);
    expect(estimate.breakingStep).toBe(6);
    expect(estimate.sentence).toMatch(
      /Searched coarse steps of 50 \(the first level, 100, tried 2 times after it broke\), then 10 between 300 and 350/,
    );

    const never = analyzeCapacity(
      [0, 1, 2].flatMap((step) => stepRows(step, 100).map((r) => ({ ...r, rttHist: transient }))),
      slos,
      load,
    )!;
    expect(never.steps.map((s) => s.retry ?? false)).toEqual([false, true, true]);
    expect(never).toMatchObject({
      clients: null,
      valid: false,
      breakingStep: 2,
      problems: ["the first step broke an SLO in all 3 tries"],
    });
    expect(never.sentence).toMatch(
      /^Broke at the first step \(rtt-p99-ms\) in all 3 tries: capacity is below 100 clients\./,
    );
  });

  it("automatic search: does not claim the last level that held when the server did not hold it again after the break", () => {
    const load = autoSearchLoad({ minClients: 200 });
    const levels = [100, 150, 200, 250, 300, 350, 300, 300, 300];
    // Every settle step still drains the overload of 350 clients: p99 breaks the SLO at 300 clients each time.
    const backlog = encodeValues([...Array(90).fill(1_000), ...Array(10).fill(80_000)]);
    const rows = levels.flatMap((clients, step) =>
      stepRows(step, clients).map((r) => (step >= 6 ? { ...r, rttHist: backlog } : r)),
    );
    const estimate = analyzeCapacity(rows, slos, load)!;
    expect(estimate.steps.slice(6).map((s) => [s.phase, s.held])).toEqual(Array(3).fill(["settle", false]));
    expect(estimate).toMatchObject({
      clients: null,
      valid: false,
      lastHeldClients: 300,
      recovered: false,
      range: { from: 250, to: 300 },
      minClients: 200,
      meetsMinClients: null,
    });
    expect(estimate.problems).toEqual(["the server did not recover: 300 clients did not hold again after the break"]);
    expect(estimate.sentence).toBe(
      "Not a valid estimate: 300 clients held before the break at 350 clients on rtt-p99-ms, but the server did not recover (300 did not hold again in 3 steps after the break), " +
        "so 300 is not claimed as held; capacity is between 250 and 300 clients. Searched coarse steps of 50, then 3 settle steps back at 300 (none held).",
    );
    expect(estimate.sentence).not.toMatch(/Holds/);
  });

  it("says whether a valid estimate meets the plan's minClients", () => {
    const rows = [100, 200, 300, 350].flatMap((clients, step) => stepRows(step, clients));
    const shape = (minClients?: number) => ({
      clients: 400,
      durationSec: 60,
      rampUpSec: 0,
      shape: {
        kind: "step-up" as const,
        startClients: 100,
        stepClients: 100,
        stepDurationSec: 5,
        ...(minClients ? { minClients } : {}),
      },
    });
    expect(analyzeCapacity(rows, slos, shape(300))).toMatchObject({
      clients: 300,
      valid: true,
      minClients: 300,
      meetsMinClients: true,
    });
    const below = analyzeCapacity(rows, slos, shape(320))!;
    expect(below).toMatchObject({ clients: 300, valid: true, minClients: 320, meetsMinClients: false });
    expect(below.sentence).toMatch(/Below the plan's minClients of 320\.$/);
    expect(analyzeCapacity(rows, slos, shape())).toMatchObject({ minClients: null, meetsMinClients: null });
    // Not valid (an agent was the limit): no judgement against minClients.
    const saturated = [...stepRows(0, 100), ...stepRows(1, 200), ...stepRows(2, 350, 5, true)];
    expect(analyzeCapacity(saturated, slos, shape(100))).toMatchObject({ valid: false, meetsMinClients: null });
  });

  it("names a step by the clients it held, not by a last second that already counts the next level", () => {
    // Step 1 holds 200 clients; its last second's snapshot was taken just after the ramp to 300 began.
    const rows = [
      ...stepRows(0, 100),
      ...stepRows(1, 200).map((r, i) => (i === 4 ? { ...r, clients: 300 } : r)),
      ...stepRows(2, 300),
    ];
    const estimate = analyzeCapacity(rows, slos)!;
    expect(estimate.steps.map((s) => s.clients)).toEqual([100, 200, 300]);
  });

  it("is null for a run without steps", () => {
    expect(
      analyzeCapacity(
        stepRows(0, 10).map((r) => ({ ...r, step: null })),
        slos,
      ),
    ).toBeNull();
  });
});
