// npm run bench:range — what a one-hour run's zoom and distribution cost on the server (issue 28 §1): a real API on
// real PostgreSQL and Redis, one agent storing 3,600 one-second snapshots (round trips and connects as HDR
// histograms, as an agent sends them), then the reads the run page makes, each timed from request to last byte:
// the latency distribution (histogram + heatmap) of the whole run and of a zoomed 10 minutes, and the range summary
// (merged from the stored seconds) of the same 10 minutes and of the whole hour. Prints a table of medians with the
// machine's load average and the API's own CPU time per read (it runs in this process), so a slow figure says
// whether the code or a busy machine made it; bench:web times the browser's side (docs/benchmarks.md).
import { loadavg } from "node:os";
import { EnrolmentTokenCreated, PlanView } from "@throng/protocol/api";
import { RunView } from "@throng/protocol/run";
import { encodeValues } from "@throng/core/metrics/histogram";
import { connectTestAgent, helloWith } from "../apps/api/src/testing/test-agent";
import { startTestApi } from "../apps/api/src/testing/test-api";
import { prefixedLog } from "../infra/local/log";
import { makeTempDir } from "../infra/local/temp-dir";
import { runBenchMain } from "./bench-main";
import { startBenchDatabases } from "./bench-servers";

const SECONDS = 3600;
const REPEATS = 7;
/** Snapshots sent before waiting for their acks: the agent's own buffer does the same. */
const WINDOW = 50;
const log = prefixedLog("bench:range");

/** Second `seq`'s 20,000 round trips: a spread around 2 ms with a slow tail that moves, so each second differs. */
function roundTrips(seq: number): number[] {
  const values: number[] = [];
  for (let i = 0; i < 400; i++) values.push(1_000 + ((i * 37 + seq * 11) % 3_000));
  for (let i = 0; i < 20; i++) values.push(10_000 + ((seq * 131 + i * 997) % 90_000));
  return values;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main() {
  const dir = await makeTempDir("throng-bench-range-");
  const { postgres, redis } = await startBenchDatabases(dir);
  // startTestApi makes its own database on this server, as the integration tests do.
  process.env.TEST_DATABASE_URL = postgres.adminUrl;
  process.env.REDIS_URL = redis.url;
  const api = await startTestApi({
    orchestration: { startDelayMs: 50, finishGraceMs: 600_000, agentLostGraceMs: 600_000 },
  });
  const agent = await connectTestAgent(api.gatewayUrl);
  try {
    const user = await api.signUp("Bench");
    agent.send({
      type: "hello",
      payload: helloWith({
        kind: "enrolment",
        token: EnrolmentTokenCreated.parse((await user.request("POST", "/api/enrolment-tokens")).json).token,
      }),
    });
    const orgId = (await agent.next("ready")).orgId;
    const plan = PlanView.parse(
      (
        await user.request("POST", "/api/plans", {
          name: "one-hour soak",
          target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
          scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 },
          load: { clients: 2000, durationSec: SECONDS },
        })
      ).json,
    );
    const run = RunView.parse((await user.request("POST", `/api/plans/${plan.id}/runs`)).json);
    await api.deps.orchestrator.start(orgId, run.id);
    const assignment = await agent.next("run-assignment");
    const stored = Date.now();
    // The same 20 encodings over and over: encoding is the agent's cost, not what this bench measures.
    const encodings = Array.from({ length: 20 }, (_, seq) => encodeValues(roundTrips(seq)));
    const connects = encodeValues(Array.from({ length: 2000 }, (_, i) => 3_000 + i * 7));
    for (let first = 0; first < SECONDS; first += WINDOW) {
      const last = Math.min(SECONDS, first + WINDOW);
      for (let seq = first; seq < last; seq++)
        agent.send({
          type: "snapshot",
          payload: {
            runId: run.id,
            seq,
            intervalStart: assignment.startAt + seq * 1000,
            intervalMs: 1000,
            clients: 2000,
            counters: {
              connectionsOpen: 2000,
              connectionsOpened: seq ? 0 : 2000,
              connectionsFailed: 0,
              connectionsClosed: 0,
              messagesSent: 20_000,
              messagesReceived: 20_000,
              bytesSent: 1_280_000,
              bytesReceived: 1_280_000,
              errors: 0,
            },
            histograms: { rttUs: encodings[seq % encodings.length]!, ...(seq === 0 && { connectUs: connects }) },
            health: { cpuPercent: 40, eventLoopP99Ms: 2, rssBytes: 200_000_000 },
          },
        });
      for (let seq = first; seq < last; seq++) await agent.next("snapshot-ack");
    }
    log(`stored ${SECONDS} seconds in ${((Date.now() - stored) / 1000).toFixed(1)} s`);

    const reads: [string, string][] = [
      ["distribution, whole hour (900 heatmap columns of 4 s)", `/api/runs/${run.id}/distribution?metric=rtt`],
      [
        "distribution, zoomed 10 min (600 columns of 1 s)",
        `/api/runs/${run.id}/distribution?metric=rtt&from=1200&to=1800`,
      ],
      ["range summary, zoomed 10 min", `/api/runs/${run.id}/summary?from=1200&to=1800`],
      ["range summary, whole hour", `/api/runs/${run.id}/summary?from=0&to=${SECONDS}`],
    ];
    const rows: string[] = [];
    for (const [name, url] of reads) {
      const times: number[] = [];
      const cpu: number[] = [];
      let bytes = 0;
      for (let i = 0; i < REPEATS + 1; i++) {
        const before = performance.now();
        const cpuBefore = process.cpuUsage();
        const answer = await user.request("GET", url);
        const took = performance.now() - before;
        const used = process.cpuUsage(cpuBefore);
        if (i > 0) cpu.push((used.user + used.system) / 1000);
        if (answer.status !== 200) throw new Error(`${url} answered ${answer.status}: ${JSON.stringify(answer.json)}`);
        bytes = JSON.stringify(answer.json).length;
        if (i > 0) times.push(took); // the first read warms the JIT and PostgreSQL's cache
      }
      rows.push(
        `| ${name} | ${Math.round(median(times))} ms | ${Math.round(Math.max(...times))} ms | ${Math.round(median(cpu))} ms | ${(bytes / 1024).toFixed(0)} KiB |`,
      );
    }
    const load = loadavg()
      .map((value) => value.toFixed(1))
      .join(" / ");
    console.log(`\nServer reads of a one-hour run (${SECONDS.toLocaleString("en-US")} stored seconds, 1 agent), `);
    console.log(`median of ${REPEATS} after one warm-up; load average ${load} (1 / 5 / 15 min)\n`);
    // The API runs in this process: its CPU time per read is the code's own cost, whatever else the machine runs;
    // wall time well above it is waiting (PostgreSQL, or a CPU taken by other processes).
    console.log("| read | median | max | API CPU (median) | answer |");
    console.log("| --- | ---: | ---: | ---: | ---: |");
    for (const row of rows) console.log(row);
  } finally {
    await agent.close();
    await api.close();
  }
}

runBenchMain(main, log);
