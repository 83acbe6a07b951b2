import { describe, expect, it } from "vitest";
import type { RunView } from "@throng/protocol/run";
import { EMPTY_RUN_FILTER, parseRunFilter, runFilterQuery, runsQueryOf, shownPage } from "./run-filter";
import { runView } from "../shared/run-view.test-support";

const PLAN_A = "00000000-0000-4000-8000-00000000000a";

function run(index: number, patch: Partial<RunView> = {}): RunView {
  return runView({
    id: `00000000-0000-4000-8000-${String(index).padStart(12, "0")}`,
    planId: PLAN_A,
    createdAt: new Date(Date.UTC(2026, 0, 1, 12) + index * 60_000).toISOString(),
    ...patch,
  });
}

describe("parseRunFilter / runFilterQuery", () => {
  it("round-trips a filter through the query string", () => {
    const filter = {
      planId: PLAN_A,
      status: "failed" as const,
      outcome: "breached" as const,
      from: "2026-01-01",
      to: "2026-01-31",
      tag: "release-1.4",
      page: 3,
    };
    expect(parseRunFilter(new URLSearchParams(runFilterQuery(filter)))).toEqual(filter);
  });

  it("ignores malformed values instead of showing nothing", () => {
    const query = new URLSearchParams(
      "status=exploded&outcome=meh&plan=not-an-id&from=yesterday&tag=Not%20A%20Slug&page=-2",
    );
    expect(parseRunFilter(query)).toEqual(EMPTY_RUN_FILTER);
    expect(runFilterQuery(EMPTY_RUN_FILTER)).toBe("");
  });
});

describe("runsQueryOf", () => {
  it("asks the API for one page with the filter, days as the browser's midnights", () => {
    const query = runsQueryOf({
      ...EMPTY_RUN_FILTER,
      planId: PLAN_A,
      status: "finished",
      outcome: "passed",
      from: "2026-02-10",
      to: "2026-02-10",
      tag: "nightly",
      page: 2,
    });
    expect(query).toEqual({
      plan: PLAN_A,
      status: "finished",
      outcome: "passed",
      tag: "nightly",
      createdFrom: new Date("2026-02-10T00:00:00").toISOString(),
      createdBefore: new Date("2026-02-11T00:00:00").toISOString(),
      page: 2,
      limit: 20,
    });
    expect(runsQueryOf(EMPTY_RUN_FILTER)).toEqual({ page: 1, limit: 20 });
  });
});

describe("shownPage", () => {
  it("numbers the first and last run shown, 0 when none", () => {
    const runs = Array.from({ length: 20 }, (_, i) => run(i + 1));
    expect(shownPage({ runs, matching: 45, page: 2, pages: 3, limit: 20 })).toMatchObject({ first: 21, last: 40 });
    expect(shownPage({ runs: [], matching: 0, page: 1, pages: 1, limit: 20 })).toMatchObject({ first: 0, last: 0 });
  });
});
