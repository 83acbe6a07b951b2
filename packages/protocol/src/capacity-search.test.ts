import { describe, expect, it } from "vitest";
import {
  autoSearchOf,
  coarseLevels,
  fineLevels,
  largestHeldBelowBreaks,
  MAX_FIRST_STEP_RETRIES,
  MAX_SETTLE_STEPS,
  nextLevelStart,
  nextSearchStep,
  searchAnswer,
  steadySeconds,
  type AutoSearch,
  type EvidenceStep,
  type JudgedStep,
  type SearchDecision,
} from "./capacity-search";
import { LoadShape } from "./plan";

const search: AutoSearch = { startClients: 200, maxClients: 1_600, coarseSteps: 8, fineSteps: 5, stepDurationSec: 10 };

/**
 * Runs the search against a server that holds up to `capacity` clients, after an overload needs
 * `recoverySteps` steps to drain its backlog (a settle step before then breaks), and breaks for a transient
 * in the steps numbered in `transients`: every decision, in order (a retry shown as "retry").
 */
function simulate(
  capacity: number,
  settings = search,
  recoverySteps = 0,
  transients: number[] = [],
): { levels: [number, string][]; end: SearchDecision } {
  const judged: JudgedStep[] = [];
  let sinceOverload = Infinity;
  // Bounded: a search never runs more than its coarse, retried, settle and fine levels.
  for (let i = 0; i < settings.coarseSteps + MAX_FIRST_STEP_RETRIES + MAX_SETTLE_STEPS + settings.fineSteps + 1; i++) {
    const next = nextSearchStep(settings, judged);
    if (next.done) return { levels: judged.map((s) => [s.clients, s.retry ? "retry" : s.phase]), end: next };
    const held = next.clients <= capacity && sinceOverload >= recoverySteps && !transients.includes(i);
    sinceOverload = next.clients > capacity ? 0 : sinceOverload + 1;
    judged.push({ clients: next.clients, phase: next.phase, held, retry: next.retry });
  }
  throw new Error("the search did not end");
}

describe("coarse and fine levels", () => {
  it("spreads coarse levels evenly from the start to load.clients", () => {
    expect(coarseLevels(search)).toEqual([200, 400, 600, 800, 1_000, 1_200, 1_400, 1_600]);
    expect(coarseLevels({ startClients: 1, maxClients: 3, coarseSteps: 8 })).toEqual([1, 2, 3]);
  });
  it("puts fine levels strictly between the held and the broken level", () => {
    expect(fineLevels(800, 1_000, 5)).toEqual([840, 880, 920, 960]);
    expect(fineLevels(10, 12, 5)).toEqual([11]);
    expect(fineLevels(10, 11, 5)).toEqual([]);
  });
});

describe("nextSearchStep", () => {
  /** The search's decisions at `clients` levels, all in one `phase`. */
  const levelsOf = (phase: string, ...clients: number[]) => clients.map((n) => [n, phase]);
  /** The coarse climb to 1,000 that breaks there, then the settle at 800, the last level that held. */
  const brokeAt1000 = [...levelsOf("coarse", 200, 400, 600, 800, 1_000), [800, "settle"]];

  it.each([
    {
      name: "breaks at the first step, in every try",
      capacity: 100,
      levels: [
        [200, "coarse"],
        [200, "retry"],
        [200, "retry"],
      ],
      end: "first-step-broke",
    },
    {
      name: "never breaks: stops at load.clients",
      capacity: 5_000,
      levels: levelsOf("coarse", 200, 400, 600, 800, 1_000, 1_200, 1_400, 1_600),
      end: "max-reached",
    },
    {
      name: "breaks in the coarse phase, then in the fine phase",
      capacity: 900,
      levels: [...brokeAt1000, ...levelsOf("fine", 840, 880, 920)],
      end: "fine-step-broke",
    },
    {
      name: "breaks at the last fine step",
      capacity: 959,
      levels: [...brokeAt1000, ...levelsOf("fine", 840, 880, 920, 960)],
      end: "fine-step-broke",
    },
    {
      name: "every fine step holds",
      capacity: 990,
      levels: [...brokeAt1000, ...levelsOf("fine", 840, 880, 920, 960)],
      end: "fine-range-exhausted",
    },
    {
      name: "breaks at load.clients itself, then searches below it",
      capacity: 1_450,
      levels: [
        ...levelsOf("coarse", 200, 400, 600, 800, 1_000, 1_200, 1_400, 1_600),
        [1_400, "settle"],
        ...levelsOf("fine", 1_440, 1_480),
      ],
      end: "fine-step-broke",
    },
    {
      name: "breaks at the first fine step",
      capacity: 810,
      levels: [...brokeAt1000, ...levelsOf("fine", 840)],
      end: "fine-step-broke",
    },
  ])("$name", ({ capacity, levels, end }) => {
    const result = simulate(capacity);
    expect(result.levels).toEqual(levels);
    expect(result.end).toEqual({ done: true, reason: end });
  });

  it("settles back at the last level that held until the server has recovered, then climbs in fine steps", () => {
    const coarse = levelsOf("coarse", 200, 400, 600, 800, 1_000);
    expect(simulate(900, search, 1)).toEqual({
      levels: [...coarse, [800, "settle"], [800, "settle"], ...levelsOf("fine", 840, 880, 920)],
      end: { done: true, reason: "fine-step-broke" },
    });
    expect(simulate(900, search, MAX_SETTLE_STEPS)).toEqual({
      levels: [...coarse, ...Array.from({ length: MAX_SETTLE_STEPS }, () => [800, "settle"])],
      end: { done: true, reason: "no-recovery" },
    });
  });

  it("holds the first level again when it broke, and climbs on when a retry holds: one transient does not end the search", () => {
    const climb = levelsOf("coarse", 400, 600, 800, 1_000);
    const after = [[800, "settle"], ...levelsOf("fine", 840, 880, 920)];
    expect(simulate(900, search, 0, [0])).toEqual({
      levels: [[200, "coarse"], [200, "retry"], ...climb, ...after],
      end: { done: true, reason: "fine-step-broke" },
    });
    expect(simulate(900, search, 0, [0, 1])).toEqual({
      levels: [[200, "coarse"], [200, "retry"], [200, "retry"], ...climb, ...after],
      end: { done: true, reason: "fine-step-broke" },
    });
    // A later coarse level that breaks is the break: only the first level is tried again.
    expect(simulate(900, search, 0, [2]).levels.slice(0, 4)).toEqual([
      [200, "coarse"],
      [400, "coarse"],
      [600, "coarse"],
      [400, "settle"],
    ]);
  });

  it("ends at once when no fine level fits between the held and the broken level", () => {
    const tight = { ...search, startClients: 1, maxClients: 3 };
    expect(simulate(1, tight)).toEqual({
      levels: [
        [1, "coarse"],
        [2, "coarse"],
      ],
      end: { done: true, reason: "fine-range-exhausted" },
    });
  });

  it("starts at startClients", () => {
    expect(nextSearchStep(search, [])).toEqual({ done: false, clients: 200, phase: "coarse" });
  });
});

describe("autoSearchOf", () => {
  it("reads an automatic step-up with its defaults, and nothing else", () => {
    const load = LoadShape.parse({
      clients: 1_000,
      durationSec: 600,
      shape: { kind: "step-up", mode: "auto", startClients: 100, stepDurationSec: 10 },
    });
    expect(autoSearchOf(load)).toEqual({
      startClients: 100,
      maxClients: 1_000,
      coarseSteps: 8,
      fineSteps: 5,
      stepDurationSec: 10,
    });
    const fixed = LoadShape.parse({
      clients: 1_000,
      durationSec: 600,
      shape: { kind: "step-up", startClients: 100, stepClients: 100, stepDurationSec: 10 },
    });
    expect(autoSearchOf(fixed)).toBeNull();
  });
});

describe("step-up plan validation", () => {
  const issues = (shape: object, clients = 1_000) => {
    const result = LoadShape.safeParse({
      clients,
      durationSec: 600,
      shape: { kind: "step-up", stepDurationSec: 10, ...shape },
    });
    return result.success ? [] : result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  };
  it("names the field that is missing or does not fit the mode", () => {
    expect(issues({ startClients: 100 })).toEqual([
      "shape.stepClients: give the clients added per step, or set mode: auto",
    ]);
    expect(issues({ startClients: 100, stepClients: 10, coarseSteps: 4 })).toEqual([
      "shape.coarseSteps: only an automatic search (mode: auto) has coarse steps",
    ]);
    expect(issues({ mode: "auto", startClients: 100, stepClients: 10 })).toEqual([
      "shape.stepClients: an automatic search chooses its own steps: leave stepClients out, or use mode fixed",
    ]);
    expect(issues({ mode: "auto", startClients: 1_000 })).toEqual([
      "shape.startClients: must be below load.clients (1000): the search climbs from it to load.clients",
    ]);
    expect(issues({ mode: "auto", startClients: 10, fineSteps: 1 })).toEqual([
      "shape.fineSteps: the fine phase needs at least 2 increments",
    ]);
    expect(issues({ mode: "auto", startClients: 10, coarseSteps: 4, fineSteps: 4 })).toEqual([]);
  });
  it("takes a minClients from 1 to load.clients, in either mode", () => {
    expect(issues({ mode: "auto", startClients: 10, minClients: 1_000 })).toEqual([]);
    expect(issues({ startClients: 10, stepClients: 10, minClients: 250 })).toEqual([]);
    expect(issues({ mode: "auto", startClients: 10, minClients: 0 })).toEqual([
      "shape.minClients: must be at least 1 client",
    ]);
    expect(issues({ mode: "auto", startClients: 10, minClients: 1_001 })).toEqual([
      "shape.minClients: must be at most load.clients (1000): the search never holds more clients, so it could never show that many held",
    ]);
  });
});

describe("nextLevelStart", () => {
  it("starts on the step's end when decided at once, else on the next second of the run's grid", () => {
    expect(nextLevelStart(1_000, 11_000, 11_020)).toBe(11_000);
    expect(nextLevelStart(1_000, 11_000, 12_300)).toBe(13_000);
    expect(nextLevelStart(1_000, 11_000, 13_000)).toBe(13_000);
  });
});

describe("steadySeconds", () => {
  /** One agent's seconds: [second, clients started, connections open at its end]. */
  const rows = (...seconds: [number, number, number][]) =>
    seconds.map(([second, clients, connectionsOpen]) => ({ second, clients, connectionsOpen }));
  const judged = (list: ReturnType<typeof rows>) => [...new Set(steadySeconds(list, (r) => r).map((r) => r.second))];

  it("leaves out every second before the one in which the connections reached the level, and that one", () => {
    // Connections still opening in seconds 0 and 1 (a connect spike): judged from second 2 on, not from second 1.
    expect(judged(rows([0, 20, 8], [1, 20, 20], [2, 20, 20], [3, 20, 20], [4, 20, 20]))).toEqual([2, 3, 4]);
    expect(judged(rows([0, 20, 5], [1, 20, 17], [2, 20, 20], [3, 20, 20], [4, 20, 20]))).toEqual([3, 4]);
    // Coming down to a lower level after a higher step counts the same way.
    expect(judged(rows([0, 16, 19], [1, 16, 16], [2, 16, 16], [3, 16, 16]))).toEqual([2, 3]);
  });
  it("sums agents' seconds, and takes a client reconnecting among many as at the level", () => {
    const two = [
      ...rows([0, 500, 300], [1, 500, 495], [2, 500, 500]),
      ...rows([0, 500, 200], [1, 500, 500], [2, 500, 499]),
    ];
    expect(judged(two)).toEqual([2]);
  });
  it("judges the seconds less the first when the connections never settle at the level", () => {
    expect(judged(rows([0, 20, 5], [1, 20, 12], [2, 20, 15], [3, 20, 18]))).toEqual([1, 2, 3]);
    expect(judged(rows([0, 20, 5], [1, 20, 12], [2, 20, 20]))).toEqual([1, 2]);
    expect(judged(rows([5, 20, 5], [6, 20, 20]))).toEqual([5, 6]);
  });
});

describe("largestHeldBelowBreaks and searchAnswer", () => {
  // A search's steps in the order they ran: a level that held every SLO, or one that broke one.
  const held = (clients: number, more: Partial<EvidenceStep> = {}) => ({ ...more, clients, held: true });
  const broke = (clients: number, more: Partial<EvidenceStep> = {}) => ({ ...more, clients, held: false });
  it("counts settle steps neither as held nor as broken", () => {
    const steps = [held(800), broke(1_000), broke(800, { phase: "settle" }), held(840)];
    expect(largestHeldBelowBreaks(steps)?.clients).toBe(840);
  });
  it("takes the largest held level below the lowest break, whatever the order", () => {
    const steps = [held(800), broke(1_000), held(840), broke(880), held(1_200)];
    expect(largestHeldBelowBreaks(steps)?.clients).toBe(840);
    expect(largestHeldBelowBreaks([broke(200)])).toBeNull();
    expect(largestHeldBelowBreaks([held(200), held(400)])?.clients).toBe(400);
  });
  it("counts a first try that a retry superseded as neither, and a first level that broke in every try as the break", () => {
    const transient = [broke(200), held(200, { retry: true }), held(400), broke(600)];
    expect(searchAnswer(transient)).toMatchObject({ held: { clients: 400 }, lowestBreak: 600, retries: 1 });
    const below = [broke(200), broke(200, { retry: true }), broke(200, { retry: true })];
    expect(searchAnswer(below)).toMatchObject({
      held: null,
      lastHeld: null,
      lowestBreak: 200,
      range: null,
      retries: 2,
    });
  });
  it("does not claim a level held when it broke again after the break and never held again: the server did not recover", () => {
    const coarse = [held(200), held(400), held(600), broke(800)];
    const settle = (holds: boolean) => (holds ? held : broke)(600, { phase: "settle" });
    const failed = searchAnswer([...coarse, settle(false), settle(false), settle(false)]);
    expect(failed.held).toBeNull();
    expect(failed.lastHeld?.clients).toBe(600);
    expect(failed.notHeldAgain).toHaveLength(3);
    // 400 held and nothing contradicts it: capacity lies between 400 and 600.
    expect(failed.range).toEqual({ from: 400, to: 600 });
    // Once the level holds again, the breaks before are the backlog draining: the estimate stands.
    const recovered = searchAnswer([
      ...coarse,
      settle(false),
      settle(true),
      held(640, { phase: "fine" }),
      broke(680, { phase: "fine" }),
    ]);
    expect(recovered).toMatchObject({ held: { clients: 640 }, notHeldAgain: [], range: null, lowestBreak: 680 });
    // No lower level held: nothing to give a range from.
    expect(searchAnswer([held(200), broke(400), broke(200, { phase: "settle" })]).range).toBeNull();
  });
});
