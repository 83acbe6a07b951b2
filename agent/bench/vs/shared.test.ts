import { describe, expect, it } from "vitest";
import { k6Script } from "./k6";
import { vsToolNames } from "./run-vs";
import { comparisonTable, figures, type ToolRun, type VsResult, type VsScenario } from "./shared";
import { tsungConfig } from "./tsung";

const target = { wsUrl: "ws://127.0.0.1:7070/ws", tcpPort: 7071 };
const s1: VsScenario = { kind: "s1", clients: 100, intervalMs: 1_000, rampUpSec: 1, holdSec: 6 };

/** One sample per second: clients connected, cumulative messages/accepts, cumulative CPU ticks (100 per s). */
function run(
  rows: Array<[clients: number, messages: number, accepted: number, ticks: number]>,
  everyMs = 1_000,
): ToolRun {
  return {
    samples: rows.map(([clients, messages, accepted, ticks], i) => ({
      at: i * everyMs,
      clients,
      messages,
      accepted,
      ticks,
      rssBytes: 1_048_576 * (i + 1),
    })),
    output: "",
    exitCode: 0,
  };
}

describe("bench --vs meter", () => {
  it("takes S1/S2 rates and CPU from the steady window, 2 s after the plateau starts, counted by the target", () => {
    // Ramp, then 100 clients at 100 msg/s using 10 ticks (0.1 s) per second; the ramp's seconds cost more.
    const result = figures(
      s1,
      run([
        [0, 0, 0, 0],
        [50, 20, 50, 40],
        [100, 120, 100, 80],
        [100, 220, 100, 90],
        [100, 320, 100, 100],
        [100, 420, 100, 110],
        [100, 520, 100, 120],
        [0, 560, 100, 130],
      ]),
    );
    expect(result).toMatchObject({ connected: 100, rate: 100, cpuPercent: 10, rssBytes: 8 * 1_048_576 });
    expect(result.cpuUsPerUnit).toBeCloseTo(1_000);
    expect(result.note).toBeUndefined();
  });

  it("says so when a tool never held its peak (still connecting at the end) instead of inventing a plateau", () => {
    const result = figures(
      s1,
      run([
        [0, 0, 0, 0],
        [40, 10, 40, 10],
        [80, 60, 80, 20],
        [95, 140, 95, 30],
        [100, 240, 100, 40],
      ]),
    );
    expect(result.note).toMatch(/no steady plateau/);
    expect(result.rate).toBeGreaterThan(0);
  });

  it("S3: the busiest 1 s window of accepted connections and the seconds from the first accept to the last", () => {
    const s3: VsScenario = { kind: "s3", clients: 1_000, holdSec: 5 };
    // Samples every 250 ms: 500 accepts, then 500 more in the next half second.
    const result = figures(
      s3,
      run(
        [
          [0, 0, 10, 0],
          [250, 0, 260, 5],
          [500, 0, 510, 10],
          [750, 0, 760, 15],
          [1000, 0, 1010, 20],
          [1000, 0, 1010, 21],
          [1000, 0, 1010, 22],
          [1000, 0, 1010, 22],
        ],
        250,
      ),
    );
    expect(result).toMatchObject({ connected: 1_000, connPeak: 1_000, connSeconds: 1 });
    expect(result.cpuUsPerUnit).toBeCloseTo(200);
  });

  it("prints a row per tool with the ratios against Throng, and the reason for a tool that did not run", () => {
    const s2: VsScenario = { kind: "s2", protocol: "tcp", connections: 100, durationSec: 20 };
    const results: VsResult[] = [
      {
        tool: "Throng",
        scenario: s2,
        connected: 100,
        rate: 30_000,
        cpuPercent: 30,
        cpuUsPerUnit: 10,
        rssBytes: 90 * 1_048_576,
      },
      {
        tool: "Tsung",
        scenario: s2,
        connected: 100,
        rate: 10_000,
        cpuPercent: 30,
        cpuUsPerUnit: 30,
        rssBytes: 70 * 1_048_576,
      },
      { tool: "k6", scenario: s2, notRun: "k6: no raw TCP (no TCP client built in; not faked)" },
    ];
    const lines = comparisonTable(results).split("\n");
    expect(lines[3]).toContain("| Tsung | 100 of 100 | 10,000 msg/s | 30.0% | 30.0 µs | 70 MiB | - | 3.00× | 3.00× |");
    expect(lines[4]).toContain("| k6 | - | k6: no raw TCP");
  });

  it("rejects an unknown --vs tool before anything runs", () => {
    expect(vsToolNames(["--vs", "tsung", "--vs=k6"])).toEqual(["tsung", "k6"]);
    expect(() => vsToolNames(["--vs", "jmeter"])).toThrow("--vs jmeter: unknown tool; expected one of tsung, k6");
  });

  it("writes the same load for each tool: Tsung's 164-byte ping and len2 TCP frame, k6 with no raw TCP", () => {
    const ping = /<websocket type="message" frame="text" ack="parse">([^<]*)<\/websocket>/.exec(
      tsungConfig(s1, target),
    )![1]!;
    expect(Buffer.byteLength(ping.replace(/&quot;/g, '"'))).toBe(164);
    expect(tsungConfig({ kind: "s2", protocol: "tcp", connections: 100, durationSec: 20 }, target)).toContain(
      "[0,8,97,98,99,100,101,102,103,104]",
    );
    expect(tsungConfig({ kind: "s2", protocol: "tcp", connections: 100, durationSec: 20 }, target)).toContain(
      'port="7071"',
    );
    expect(k6Script({ kind: "s2", protocol: "tcp", connections: 100, durationSec: 20 }, target)).toBeUndefined();
    expect(k6Script(s1, target)).toContain(String.raw`\"rb\":71`);
  });
});
