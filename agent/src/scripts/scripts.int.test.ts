import { createServer, type Server } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ScriptScenario } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { judgeRun } from "@throng/protocol/run-verdict";
import { runOnEngines } from "../engine/engines";
import { runShard, type RunShardOptions } from "../engine/run-shard";
import { decodeHistogram } from "../metrics/histogram";
import { localRun } from "../metrics/run-summary";
import { assignmentFor, total, totalsByKind } from "../testing/assignment";

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

async function runScript(
  scenario: Omit<ScriptScenario, "kind">,
  clients: number,
  durationSec: number,
  options: Partial<RunShardOptions> = { scripts: { permission: { any: true } } },
) {
  const snapshots: MetricSnapshot[] = [];
  const assignment = assignmentFor(
    {
      target: { protocol: "websocket", url: "ws://127.0.0.1:9/" },
      scenario: { kind: "script", ...scenario },
      load: { clients, durationSec, rampUpSec: 0 },
      // The script's worker loads before the start: on a busy machine that can take longer than a start of "now" allows.
    },
    Date.now() + 2_000,
  );
  await runShard(assignment, { ...options, onSnapshot: (s) => snapshots.push(s) });
  return snapshots;
}

const scriptCount = (snapshots: MetricSnapshot[], name: string) =>
  snapshots.reduce((sum, s) => sum + (s.counters.scriptCounts?.[name] ?? 0), 0);

let server: Server | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

describe("scripted clients (issue 15)", () => {
  it("runs the client function once per client in a worker: named histograms and counters in every second, timers till the end", async () => {
    const snapshots = await runScript(
      {
        script: { path: fixture("counting.mjs") },
        metrics: [
          { name: "work-ms", kind: "histogram" },
          { name: "ticks", kind: "counter" },
        ],
      },
      4,
      2,
    );
    expect(snapshots.map((s) => s.seq)).toEqual([0, 1]);
    for (const s of snapshots) expect(Object.keys(s.histograms.script ?? {})).toEqual(["work-ms"]);
    const work = decodeHistogram(snapshots[0]!.histograms.script!["work-ms"]!);
    expect(work.totalCount).toBe(4);
    expect(work.getValueAtPercentile(50)).toBeGreaterThanOrEqual(4_000); // a 5 ms wait, recorded in µs
    expect(scriptCount(snapshots, "started")).toBe(4);
    expect(scriptCount(snapshots, "ticks")).toBeGreaterThan(4 * 10); // correctness, not speed: ~4 × 20 on an idle host
    expect(total(snapshots, "errors")).toBe(0);
  });

  it("a script that throws at import fails the shard with its own message", async () => {
    await expect(runScript({ script: { path: fixture("throws-at-import.mjs") } }, 1, 1)).rejects.toThrow(
      /throws-at-import\.mjs failed to load: the script broke on purpose at import/,
    );
  });

  it("a client that throws is counted as script-error, logged once, and the other clients go on", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const snapshots = await runScript({ script: { path: fixture("client-throws.mjs") } }, 6, 2);
    expect(totalsByKind(snapshots, "errorsByKind")).toEqual({ "script-error": 3 });
    expect(logged.mock.calls.filter(([line]) => String(line).includes("client 0 failed on purpose"))).toHaveLength(1);
    expect(scriptCount(snapshots, "alive")).toBeGreaterThan(3 * 5);
    expect(snapshots.at(-1)!.counters.scriptCounts!.alive).toBeGreaterThan(0);
  });

  it("a client that hangs past the end: the run's snapshots end on time and the worker is terminated", async () => {
    const snapshots = await runScript({ script: { path: fixture("hangs.mjs") } }, 3, 1);
    expect(snapshots.map((s) => s.seq)).toEqual([0]);
    expect(scriptCount(snapshots, "started")).toBe(3);
    expect(total(snapshots, "errors")).toBe(0);
  });

  it("a script's socket to a destination off --allow-target fails naming it and the flag; one on the list connects", async () => {
    server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const allowed = (server.address() as { port: number }).port;
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const scripts = { permission: { any: true as const }, allowTargets: [`127.0.0.1:${allowed}`] };
    // 3 s, not 1: on a busy host a worker's clients can start a good part of a second late, and the run's end aborts them.
    const refused = await runScript({ script: { path: fixture("connects.mjs") }, parameters: { port: 9 } }, 2, 3, {
      scripts,
    });
    expect(totalsByKind(refused, "errorsByKind")).toEqual({ "script-error": 2 });
    expect(logged.mock.calls.map(([line]) => String(line))).toContain(
      `warning: script error: connection to 127.0.0.1:9 refused: it is not on this agent's --allow-target list (127.0.0.1:${allowed})`,
    );
    const connected = await runScript(
      { script: { path: fixture("connects.mjs") }, parameters: { port: allowed } },
      2,
      3,
      { scripts },
    );
    expect(scriptCount(connected, "connected")).toBe(2);
  });

  it("throng-agent run judges an SLO on a script's metric: connect-ms p99 below 1000 ms passes", async () => {
    server = createServer(() => {});
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const slos = [
      { metric: "script:connect-ms-p99" as const, below: 1000 },
      { metric: "script:connected-count" as const, below: 3 },
    ];
    const assignment = assignmentFor(
      {
        target: { protocol: "websocket", url: "ws://127.0.0.1:9/" },
        scenario: {
          kind: "script",
          script: { path: fixture("connect-timed.mjs") },
          parameters: { port },
          metrics: [
            { name: "connect-ms", kind: "histogram" },
            { name: "connected", kind: "counter" },
          ],
        },
        load: { clients: 2, durationSec: 2, rampUpSec: 0 },
        slos,
        // The worker loads the script before the start: on a busy host that took longer than this 2 s run ("expired").
      },
      Date.now() + 4_000,
    );
    const snapshots: MetricSnapshot[] = [];
    await runShard(assignment, {
      scripts: { permission: { any: true }, allowTargets: [`127.0.0.1:${port}`] },
      onSnapshot: (s) => snapshots.push(s),
    });
    const { summary, seconds } = localRun(snapshots);
    expect(summary?.script?.["connect-ms"]?.count).toBe(2);
    // The same verdict the run command prints (standaloneVerdict), from the same seconds and summary.
    const verdict = judgeRun({
      spec: assignment.plan,
      ended: "finished",
      problems: [],
      summary,
      seconds,
      startSecond: Math.floor(assignment.startAt / 1000),
    });
    expect(verdict.slos.map((slo) => [slo.metric, slo.status])).toEqual([
      ["script:connect-ms-p99", "met"],
      ["script:connected-count", "met"],
    ]);
    expect(verdict.slos[1]!.value).toBe(2);
    expect(verdict.outcome).toBe("passed");
  });

  it("the sockets a script opens count as the run's connections: opened with their connect time and held, a failed one counted once (by the script); the verdict sees them held", async () => {
    server = createServer(() => {});
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const assignment = assignmentFor(
      {
        target: { protocol: "websocket", url: "ws://127.0.0.1:9/" },
        scenario: { kind: "script", script: { path: fixture("connect-timed.mjs") }, parameters: { port } },
        load: { clients: 3, durationSec: 4, rampUpSec: 0 },
      },
      Date.now() + 2_000,
    );
    const snapshots: MetricSnapshot[] = [];
    await runShard(assignment, { scripts: { permission: { any: true } }, onSnapshot: (s) => snapshots.push(s) });
    expect(total(snapshots, "connectionsOpened")).toBe(3);
    expect(total(snapshots, "connectionsFailed")).toBe(0);
    expect(snapshots.slice(1, -1).map((s) => s.counters.connectionsOpen)).toEqual([3, 3]);
    expect(decodeHistogram(snapshots[0]!.histograms.connectUs!).totalCount).toBe(3);
    const verdict = judgeRun({
      spec: assignment.plan,
      ended: "finished",
      problems: [],
      ...localRun(snapshots),
      startSecond: Math.floor(assignment.startAt / 1000),
    });
    expect(verdict.reasons).toEqual([]);
    expect(verdict.outcome).toBe("passed");

    // Nothing listens on port 9 here: each refused connect is one error, the script's own (its measure rejects), not two.
    const refused = await runScript({ script: { path: fixture("connect-timed.mjs") }, parameters: { port: 9 } }, 2, 1);
    expect(total(refused, "connectionsOpened") + total(refused, "connectionsFailed")).toBe(0);
    expect(totalsByKind(refused, "errorsByKind")).toEqual({ "script-error": 2 });
  });

  it("an agent without --allow-scripts refuses a script shard; a script by hash needs the file the agent fetched for it", async () => {
    await expect(runScript({ script: { path: fixture("counting.mjs") } }, 1, 1, {})).rejects.toThrow(
      "this agent does not run scripts: start it with --allow-scripts (or --allow-scripts <sha256> to allow one bundle)",
    );
    await expect(runScript({ script: { sha256: "a".repeat(64) } }, 1, 1)).rejects.toThrow(
      "a script by sha256 is fetched from the control plane by throng-agent connect",
    );
  });
});

describe("a script shard's engines (issue 25 §4)", () => {
  // Starting 4 s ahead: on a busy host a worker loading the script through tsx can take longer than the run itself.
  const assignment = () =>
    assignmentFor(
      {
        target: { protocol: "websocket", url: "ws://127.0.0.1:9/" },
        scenario: { kind: "script", script: { path: fixture("counting.mjs") } },
        load: { clients: 4, durationSec: 1, rampUpSec: 0 },
      },
      Date.now() + 4_000,
    );
  /** A pool that records how many engine processes a shard asked for and forks none. */
  const recordingPool = () => {
    const taken: number[] = [];
    return {
      taken,
      pool: {
        take: (count: number) => {
          taken.push(count);
          return Promise.reject(new Error(`asked for ${count} engine processes`));
        },
        close() {},
      },
    };
  };

  it("a small script shard on a 2-engine agent runs its clients on one engine, in this process: no engine process is forked", async () => {
    const { taken, pool } = recordingPool();
    const snapshots: MetricSnapshot[] = [];
    await runOnEngines(assignment(), {
      engines: 2,
      pool,
      scripts: { permission: { any: true } },
      onSnapshot: (s) => snapshots.push(s),
    });
    expect(taken).toEqual([]);
    expect(scriptCount(snapshots, "started")).toBe(4);
  });

  it("with --engines 2 the same shard is spread over two engine processes", async () => {
    const { taken, pool } = recordingPool();
    await expect(
      runOnEngines(assignment(), {
        engines: 2,
        enginesChosen: true,
        pool,
        scripts: { permission: { any: true } },
        onSnapshot: () => {},
      }),
    ).rejects.toThrow("asked for 2 engine processes");
    expect(taken).toEqual([2]);
  });
});
