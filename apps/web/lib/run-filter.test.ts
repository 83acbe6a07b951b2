import { describe, expect, it } from "vitest";
import type { RunView } from "@throng/protocol/run";
import { applyRunFilter, EMPTY_RUN_FILTER, parseRunFilter, plansOfRuns, runFilterQuery } from "./run-filter";

const PLAN_A = "00000000-0000-4000-8000-00000000000a";
const PLAN_B = "00000000-0000-4000-8000-00000000000b";

function run(index: number, patch: Partial<RunView> = {}): RunView {
  return {
    id: `00000000-0000-4000-8000-${String(index).padStart(12, "0")}`,
    planId: PLAN_A,
    planName: "Lobby",
    status: "finished",
    spec: {
      name: "Lobby",
      target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
      scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 64 },
      load: { clients: 10, durationSec: 30, rampUpSec: 0 },
    },
    error: null,
    createdAt: new Date(Date.UTC(2026, 0, 1, 12) + index * 60_000).toISOString(),
    startedAt: null,
    endedAt: null,
    summary: null,
    events: [],
    ...patch,
  };
}

describe("parseRunFilter / runFilterQuery", () => {
  it("round-trips a filter through the query string", () => {
    const filter = { planId: PLAN_A, status: "failed" as const, from: "2026-01-01", to: "2026-01-31", page: 3 };
    expect(parseRunFilter(new URLSearchParams(runFilterQuery(filter)))).toEqual(filter);
  });

  it("ignores malformed values instead of showing nothing", () => {
    const query = new URLSearchParams("status=exploded&from=yesterday&page=-2");
    expect(parseRunFilter(query)).toEqual(EMPTY_RUN_FILTER);
    expect(runFilterQuery(EMPTY_RUN_FILTER)).toBe("");
  });
});

describe("applyRunFilter", () => {
  const runs = [
    run(1),
    run(2, { status: "failed" }),
    run(3, { planId: PLAN_B, planName: "Soak" }),
    run(4, { createdAt: "2026-02-10T10:00:00.000Z" }),
  ];

  it("filters by plan and status, newest first", () => {
    expect(applyRunFilter(runs, { ...EMPTY_RUN_FILTER, planId: PLAN_A }).runs.map((r) => r.status)).toEqual(["finished", "failed", "finished"]);
    expect(applyRunFilter(runs, { ...EMPTY_RUN_FILTER, status: "failed" }).matching).toBe(1);
  });

  it("keeps runs created on the from and to days themselves", () => {
    const page = applyRunFilter(runs, { ...EMPTY_RUN_FILTER, from: "2026-02-10", to: "2026-02-10" });
    expect(page.runs.map((r) => r.id)).toEqual([runs[3]!.id]);
  });

  it("pages, and clamps a page past the end to the last", () => {
    const many = Array.from({ length: 45 }, (_, i) => run(i + 1));
    const second = applyRunFilter(many, { ...EMPTY_RUN_FILTER, page: 2 });
    expect([second.first, second.last, second.pages, second.runs.length]).toEqual([21, 40, 3, 20]);
    const beyond = applyRunFilter(many, { ...EMPTY_RUN_FILTER, page: 9 });
    expect([beyond.page, beyond.first, beyond.last]).toEqual([3, 41, 45]);
    expect(applyRunFilter([], EMPTY_RUN_FILTER)).toMatchObject({ matching: 0, first: 0, last: 0, pages: 1 });
  });
});

describe("plansOfRuns", () => {
  it("lists each plan once by the name its newest run recorded", () => {
    const renamed = [run(1, { planName: "Old" }), run(2, { planName: "New" }), run(3, { planId: PLAN_B, planName: "Soak" })];
    expect(plansOfRuns(renamed)).toEqual([
      { id: PLAN_A, name: "New" },
      { id: PLAN_B, name: "Soak" },
    ]);
  });
});
