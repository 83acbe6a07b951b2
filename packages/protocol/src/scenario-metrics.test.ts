import { describe, expect, it } from "vitest";
import { PlanSpec, type PlanSpecInput } from "./plan";
import { runSummary } from "./run-summary.test-support";
import {
  countsMessages,
  hasRoundTrips,
  nothingMeasured,
  ownFigure,
  scenarioMetrics,
  type ScenarioKind,
} from "./scenario-metrics";
import type { SeriesPoint } from "./snapshot";

const KINDS: readonly ScenarioKind[] = ["ping-pong", "echo-flood", "movement-sync", "login-storm", "script"];
const stats = (p99Ms: number, count = 10) => ({ count, p50Ms: 1, p90Ms: p99Ms, p99Ms, maxMs: p99Ms });

describe("scenario metrics", () => {
  it("says which scenarios time round trips and which have their messages counted", () => {
    expect(KINDS.filter(hasRoundTrips)).toEqual(["ping-pong", "echo-flood"]);
    expect(KINDS.filter((kind) => !countsMessages(kind))).toEqual(["script"]);
  });

  it("leads movement-sync with broadcast p99 and reach, login-storm with connect and login p99, the others with none", () => {
    expect(scenarioMetrics("movement-sync").map((metric) => [metric.id, metric.unit, metric.slo])).toEqual([
      ["broadcast-p99", "ms", "broadcast-p99-ms"],
      ["broadcast-reach", "ratio", undefined],
    ]);
    expect(scenarioMetrics("login-storm").map((metric) => [metric.label, metric.slo])).toEqual([
      ["Connect p99", "connect-p99-ms"],
      ["Login p99", "login-p99-ms"],
    ]);
    for (const kind of ["ping-pong", "echo-flood", "script"] as const) expect(scenarioMetrics(kind)).toEqual([]);
  });

  it("reads each figure from a run's summary and from one second alike, null when nothing was measured", () => {
    const [broadcast, reach] = scenarioMetrics("movement-sync");
    const [connect, login] = scenarioMetrics("login-storm");
    const run = runSummary({
      latency: { broadcast: stats(12.5), connect: stats(3), login: stats(40, 0) },
      broadcastReach: 0.987,
    });
    expect([broadcast!.read(run), reach!.read(run), connect!.read(run), login!.read(run)]).toEqual([
      12.5,
      0.987,
      3,
      null,
    ]);
    expect([broadcast!.read(runSummary({})), reach!.read(runSummary({ broadcastReach: null }))]).toEqual([null, null]);
    const second = {
      t: 1,
      latency: { broadcast: stats(7) },
      broadcastReach: 0.5,
    } as Partial<SeriesPoint> as SeriesPoint;
    expect([broadcast!.read(second), reach!.read(second)]).toEqual([7, 0.5]);
  });

  describe("a scenario's own figure, which must have measured something for a run to pass", () => {
    const scenario = (input: PlanSpecInput["scenario"]) =>
      PlanSpec.parse({
        name: "p",
        target: { protocol: "websocket", url: "ws://127.0.0.1:1/" },
        scenario: input,
        load: { clients: 1, durationSec: 5 },
      }).scenario;
    const pingPong = scenario({ kind: "ping-pong", intervalMs: 200, messageBytes: 64 });

    it("ping-pong and echo-flood: round trips; replies that matched none say which rule to check", () => {
      expect(ownFigure(pingPong, runSummary({ roundTrips: 0 }))).toEqual({ name: "round trips", measured: 0 });
      expect(nothingMeasured(pingPong, runSummary({ roundTrips: 12, rttP50Ms: 1 }))).toBeNull();
      expect(nothingMeasured(pingPong, runSummary({ roundTrips: 0, messagesSent: 5, messagesReceived: 5 }))).toBe(
        'the ping-pong scenario measured no round trips: 5 messages sent, 5 messages received; received 5 messages, none matched the ping\'s seq by the default match (a JSON reply {"type":"pong","seq":N}): check `match`',
      );
      const byField = scenario({
        kind: "ping-pong",
        intervalMs: 200,
        messageBytes: 64,
        match: { by: "json-field", field: "id" },
      });
      expect(nothingMeasured(byField, runSummary({ messagesReceived: 3 }))).toMatch(
        /none matched the ping's seq by `match` \(json-field\): check `match`$/,
      );
      expect(nothingMeasured(pingPong, runSummary({ messagesReceived: 0 }))).toBe(
        "the ping-pong scenario measured no round trips: 100 messages sent, 0 messages received",
      );
      const echo = scenario({ kind: "echo-flood", messageBytes: 16, match: { by: "regex", pattern: "(\\d+)" } });
      expect(nothingMeasured(echo, runSummary({ messagesReceived: 7, errorsByKind: { "unmatched-echo": 7 } }))).toMatch(
        /received 7 messages, none matched an echo's seq by `match` \(regex\): check `match`$/,
      );
      expect(nothingMeasured(echo, runSummary({ messagesReceived: 7, errorsByKind: { "bad-reply": 7 } }))).toMatch(
        /7 replies failed the plan's reply check: check `reply`$/,
      );
    });

    it("a session whose expect step matched nothing is named, for any scenario with one and for login-storm's built-in login", () => {
      const withSession = scenario({
        kind: "ping-pong",
        intervalMs: 200,
        messageBytes: 64,
        session: [
          { kind: "send", message: { body: "AUTH" } },
          { kind: "expect", reply: { regex: "^OK" } },
        ],
      });
      expect(
        nothingMeasured(withSession, runSummary({ messagesReceived: 4, errorsByKind: { "session-timeout": 2 } })),
      ).toMatch(/received 4 messages, none matched the session's expect step \(2 sessions failed\): check `session`/);
      const login = scenario({ kind: "login-storm", login: true });
      expect(ownFigure(login, runSummary({ loginsSucceeded: 0 }))).toEqual({ name: "logins", measured: 0 });
      expect(
        nothingMeasured(
          login,
          runSummary({ loginsSucceeded: 0, messagesReceived: 9, errorsByKind: { "login-session-timeout": 9 } }),
        ),
      ).toMatch(
        /measured no logins: .*; received 9 messages, none matched the built-in login's expect step \(a JSON reply with type login-ok\) \(9 sessions failed\)/,
      );
      expect(nothingMeasured(login, runSummary({ loginsSucceeded: 3 }))).toBeNull();
      // A storm that only connects: its connections are its figure.
      expect(ownFigure(scenario({ kind: "login-storm" }), runSummary({ connectionsOpened: 0 }))).toEqual({
        name: "connections opened",
        measured: 0,
      });
    });

    it("movement-sync: broadcasts received; players that never joined expected none, which is none measured; one player alone expects none", () => {
      const sync = scenario({ kind: "movement-sync", roomSize: 4, updateHz: 10 });
      expect(nothingMeasured(sync, runSummary({ broadcastReach: 0, messagesReceived: 40 }))).toMatch(
        /measured no broadcasts received: .*none was read as another player's broadcast .*: check `broadcast`$/,
      );
      expect(nothingMeasured(sync, runSummary({ broadcastReach: null, messagesReceived: 10 }))).toMatch(
        /received 10 messages and no player sent an update: none joined its room \(the built-in join waits for \{"type":"joined"\}/,
      );
      expect(nothingMeasured(sync, runSummary({ broadcastReach: null, peakClients: 1 }))).toBeNull();
      expect(
        nothingMeasured(sync, runSummary({ broadcastReach: 0.5, latency: { broadcast: stats(3, 20) } })),
      ).toBeNull();
    });

    it("a script: its own metrics (ctx.measure samples, ctx.count totals, ctx.broadcast receipts); none at all is nothing measured", () => {
      const script = scenario({ kind: "script", script: { path: "s.mjs" } });
      expect(nothingMeasured(script, runSummary({}))).toBe(
        "the script scenario measured no script measurements (ctx.measure, ctx.count, ctx.broadcast): the script recorded no metric at all",
      );
      expect(
        nothingMeasured(script, runSummary({ script: { "reply-ms": stats(3, 0) }, scriptCounts: { joined: 0 } })),
      ).not.toBeNull();
      expect(nothingMeasured(script, runSummary({ scriptCounts: { joined: 2 } }))).toBeNull();
      expect(nothingMeasured(script, runSummary({ script: { "reply-ms": stats(3, 5) } }))).toBeNull();
    });
  });
});
