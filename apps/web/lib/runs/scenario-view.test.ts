import { describe, expect, it } from "vitest";
import { runSummary } from "@throng/protocol/run-summary.test-support";
import { chartOrder, countsMessages, hasRoundTrips, scenarioSummaryCells } from "./scenario-view";

const stats = (p99Ms: number) => ({ count: 10, p50Ms: 1, p90Ms: p99Ms, p99Ms, maxMs: p99Ms });

describe("scenario-first run pages", () => {
  it("keeps the load charts first, round trips included, for the round-trip scenarios", () => {
    for (const kind of ["ping-pong", "echo-flood"] as const) {
      expect(hasRoundTrips(kind)).toBe(true);
      expect(chartOrder(kind).slice(0, 3)).toEqual(["connections", "messages", "rtt"]);
    }
  });

  it("leads movement-sync with broadcast latency and reach, login-storm with connect and login times, a script with its own", () => {
    expect(chartOrder("movement-sync").slice(0, 2)).toEqual(["latency", "delivery"]);
    expect(chartOrder("login-storm").slice(0, 3)).toEqual(["latency", "connections", "errors"]);
    expect(chartOrder("script").slice(0, 2)).toEqual(["script-latency", "script-counts"]);
  });

  it("has no round-trip chart for a scenario without round trips, and loses no other chart", () => {
    const all = chartOrder("ping-pong");
    for (const kind of ["movement-sync", "login-storm"] as const) {
      expect(hasRoundTrips(kind)).toBe(false);
      expect(chartOrder(kind)).not.toContain("rtt");
      expect([...chartOrder(kind)].sort()).toEqual(all.filter((id) => id !== "rtt").sort());
    }
  });

  it("has no message or byte chart for a script, whose own messages are not counted", () => {
    expect(hasRoundTrips("script")).toBe(false);
    expect(countsMessages("script")).toBe(false);
    const dropped = new Set(["rtt", "messages", "bytes"]);
    expect([...chartOrder("script")].sort()).toEqual(
      chartOrder("ping-pong")
        .filter((id) => !dropped.has(id))
        .sort(),
    );
  });

  it("names the scenario's own figures in the summary", () => {
    const moved = runSummary({ latency: { broadcast: stats(12.5) }, broadcastReach: 0.987 });
    expect(scenarioSummaryCells("movement-sync", moved)).toEqual([
      { label: "Broadcast p99", value: "12.5 ms", testId: "summary-broadcast-p99" },
      { label: "Broadcast reach", value: "98.7 %", testId: "summary-broadcast-reach" },
    ]);
    const stormed = runSummary({ latency: { connect: stats(3), login: stats(40) } });
    expect(scenarioSummaryCells("login-storm", stormed).map((cell) => [cell.label, cell.value])).toEqual([
      ["Connect p99", "3 ms"],
      ["Login p99", "40 ms"],
    ]);
    expect(scenarioSummaryCells("login-storm", runSummary({})).map((cell) => cell.value)).toEqual(["—", "—"]);
    expect(scenarioSummaryCells("ping-pong", moved)).toEqual([]);
  });
});
