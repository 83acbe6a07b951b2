// `npm run bench:kcp`: the seed's gateway test (issue 26 §3). Clients ping every 100 ms with their send time, 20 ms
// each way and 10% random loss (a network cohort holding every client), over TCP against the reference target's TCP
// echo (loss and delay below TCP, through the kernel's netfilter queue) and over KCP (fast) against kcp-go's echo;
// then rooms of 10 at 20 Hz over KCP with 30% of the players on a 100 ± 30 ms, 5% loss cohort. One standalone agent
// process (`throng-agent run`; one engine for the pings, the agent's choice for the rooms) per part, load only to 127.0.0.1. Prints Markdown tables for
// docs/benchmarks.md. Flags: --seconds N (each part, default 120), --clients N (ping clients, default 20),
// --players N (room test, default 200), --only ping|rooms.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { kcpFigures } from "@throng/protocol/kcp-figures";
import type { PlanSpecInput } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import type { Histogram } from "hdr-histogram-js";
import { decodeHistogram } from "../src/metrics/histogram";
import { kcpTestServerBinary, startKcpGoServer } from "../src/testing/kcp-go";
import { openWireCounter } from "./kcp/wire-counter";

const option = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`--${name} takes a whole number of at least 1, not "${process.argv[at + 1]}"`);
  return value;
};
const SECONDS = option("seconds", 120);
const CLIENTS = option("clients", 20);
const PLAYERS = option("players", 200);
const ONLY = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
if (ONLY !== undefined && ONLY !== "ping" && ONLY !== "rooms")
  throw new Error(`--only takes ping or rooms, not "${ONLY}"`);
/** Seconds left out at the start of each part: connects and KCP's first RTT estimates. */
const SETTLE_SEC = 3;

const bundle = join(fileURLToPath(new URL("..", import.meta.url)), "dist", "throng-agent.mjs");
if (!existsSync(bundle)) throw new Error(`no agent bundle at ${bundle}: run node agent/build.mjs first`);
const work = mkdtempSync(join(tmpdir(), "throng-bench-kcp-"));
const children: ChildProcess[] = [];
process.once("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

/** The reference target with a TCP echo (2-byte length prefix); resolves with its TCP port. */
function startTcpEcho(): Promise<number> {
  const child = spawn(
    process.execPath,
    [bundle, "target", "--host", "127.0.0.1", "--port", "0", "--tcp-port", "0", "--framing", "len2"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  children.push(child);
  let out = "";
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (chunk) => {
      out += String(chunk);
      const tcp = /target tcp on [\d.]+:(\d+)/.exec(out);
      if (tcp) resolve(Number(tcp[1]));
    });
    child.once("exit", (code) => reject(new Error(`target exited ${code}: ${out}`)));
  });
}

/** `throng-agent run plan.json --engines 1 --out`: every second's snapshot (the agent applies the cohorts itself). */
async function runAgent(name: string, plan: PlanSpecInput, engines = ["--engines", "1"]): Promise<MetricSnapshot[]> {
  const planPath = join(work, `${name}.json`);
  const out = join(work, `${name}.jsonl`);
  writeFileSync(planPath, JSON.stringify(plan));
  const child = spawn(process.execPath, [bundle, "run", planPath, ...engines, "--quiet", "--out", out], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  children.push(child);
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  // 5 (an SLO failed) and 6 (incomplete) still wrote their seconds; anything else is a failure worth stopping for.
  if (code !== 0 && code !== 5 && code !== 6) throw new Error(`agent run ${name} exited with ${code}`);
  return readFileSync(out, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as MetricSnapshot);
}

type Part = Pick<MetricSnapshot, "counters" | "histograms">;
const steady = (snapshots: MetricSnapshot[]) => snapshots.filter((s) => s.seq >= SETTLE_SEC && s.intervalMs >= 900);
const cohortParts = (snapshots: MetricSnapshot[], cohort: string): Part[] =>
  snapshots.flatMap((s) => (s.cohorts?.[cohort] ? [s.cohorts[cohort]] : []));
const sum = (parts: Part[], name: keyof MetricSnapshot["counters"]) =>
  parts.reduce((total, p) => total + ((p.counters[name] as number | undefined) ?? 0), 0);
function histogram(parts: Part[], name: keyof MetricSnapshot["histograms"]): Histogram | undefined {
  const encoded = parts
    .map((p) => p.histograms[name])
    .filter((h): h is string => typeof h === "string" && h.length > 0);
  if (encoded.length === 0) return undefined;
  const [first, ...rest] = encoded.map((h) => decodeHistogram(h));
  for (const h of rest) first!.add(h);
  return first;
}
/** The counters kcpFigures reads. */
const KCP_COUNTERS = [
  "kcpRetransmits",
  "kcpFastRetransmits",
  "kcpRtoExpiries",
  "kcpWireBytesSent",
  "kcpWireBytesReceived",
  "kcpPayloadBytesSent",
  "kcpPayloadBytesReceived",
] as const;
/** KCP's figures from its counters summed over `parts`; a counter `counted` refuses (none carried it) stays unknown. */
function kcpOf(parts: Part[], counted: (name: (typeof KCP_COUNTERS)[number]) => boolean = () => true) {
  return kcpFigures(
    Object.fromEntries(KCP_COUNTERS.map((name) => [name, counted(name) ? sum(parts, name) : undefined])),
  );
}
/** How often the agent, not the server, was the limit: its saturated seconds and worst event-loop delay. */
function agentHealth(seconds: MetricSnapshot[]): string {
  const saturated = seconds.filter((s) => s.health.saturated).length;
  const worstLoopMs = Math.max(0, ...seconds.map((s) => s.health.eventLoopP99Ms));
  const sent = seconds.reduce((total, s) => total + s.counters.messagesSent, 0);
  const scheduled = seconds.reduce((total, s) => total + (s.counters.scheduledSends ?? 0), 0);
  return `agent saturated ${saturated} of ${seconds.length} s, event-loop p99 up to ${fmt(worstLoopMs)} ms${scheduled ? `, ${fmt((sent / scheduled) * 100, 1)} % of scheduled sends made` : ""}`;
}
const ms = (h: Histogram | undefined, percentile: number | "max") =>
  h?.totalCount ? (percentile === "max" ? h.maxValue : h.getValueAtPercentile(percentile)) / 1000 : Number.NaN;
const fmt = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : "—";
const signed = (percent: number | null) =>
  percent === null || !Number.isFinite(percent) ? "—" : `${percent >= 0 ? "+" : ""}${fmt(percent, 1)} %`;

const LOSSY_LINK = { name: "seed", share: 1, delayMs: 20, lossPercent: 10 } as const;
/** The seed's ping: the send time in the message, matched back by seq; both servers echo it whole (the reference target echoes a type it does not know). */
const PING = {
  kind: "ping-pong",
  intervalMs: 100,
  message: {
    format: "json",
    body: '{"type":"time","seq":{{seq}},"sentAtUs":{{sentAtUs}},"pad":"{{pad}}"}',
    sizeBytes: 64,
  },
  match: { by: "json-field", field: "seq" },
  timeoutMs: 10_000,
} as const;

interface PingResult {
  label: string;
  answered: number;
  skipped: number;
  p50: number;
  p99: number;
  max: number;
  correctedP99: number;
  retransmits: string;
  health: string;
  dropped: number;
  payloadBytes: number;
  /** IP bytes both ways as the kernel counted them, or NaN when it could not. */
  ipBytes: number;
  kcpWireBytes: number | null;
}

function pingResult(label: string, snapshots: MetricSnapshot[], ipBytes: number): PingResult {
  const seconds = steady(snapshots);
  const parts = seconds.map((s) => s as Part);
  const kcp = kcpOf(parts, (name) => snapshots.some((s) => s.counters[name] !== undefined));
  const cohort = cohortParts(seconds, LOSSY_LINK.name);
  const rtt = histogram(parts, "rttUs");
  return {
    label,
    answered: sum(parts, "messagesReceived"),
    skipped: sum(parts, "skippedSends"),
    p50: ms(rtt, 50),
    p99: ms(rtt, 99),
    max: ms(rtt, "max"),
    correctedP99: ms(histogram(parts, "rttCorrectedUs"), 99),
    retransmits: kcp
      ? `${fmt(kcp.retransmits)} KCP (${fmt(kcp.fastRetransmits)} fast, ${fmt(kcp.rtoExpiries)} RTO)`
      : `${fmt(sum(cohort, "tcpRetransmits"))} TCP (client side)`,
    health: agentHealth(seconds),
    dropped: sum(cohort, "networkDropped"),
    payloadBytes: sum(parts, "bytesSent") + sum(parts, "bytesReceived"),
    ipBytes,
    kcpWireBytes: kcp ? kcp.wireBytes : null,
  };
}

async function pingTest(): Promise<void> {
  const counter = openWireCounter();
  if (typeof counter === "string") console.error(`note: ${counter}`);
  const tcpPort = await startTcpEcho();
  const kcpGo = await startKcpGoServer("echo", { mode: "fast" });
  const load = { clients: CLIENTS, durationSec: SECONDS, rampUpSec: 0 };
  const ip = (protocol: "tcp" | "udp", port: number) =>
    typeof counter === "string" ? Number.NaN : counter.read(protocol, port).bytes;
  // Counted over the whole run, so scaled to the steady seconds' share of it for the per-run figures below.
  const steadyShare = (SECONDS - SETTLE_SEC) / SECONDS;

  if (typeof counter !== "string") counter.watch("tcp", tcpPort);
  console.error(`TCP: ${CLIENTS} clients for ${SECONDS} s…`);
  const tcpSnapshots = await runAgent("tcp", {
    name: "seed tcp",
    target: { protocol: "tcp", host: "127.0.0.1", port: tcpPort, framing: { kind: "length-prefix", headerBytes: 2 } },
    scenario: PING,
    load,
    network: [LOSSY_LINK],
  });
  const tcp = pingResult("TCP → reference target's TCP echo", tcpSnapshots, ip("tcp", tcpPort) * steadyShare);

  if (typeof counter !== "string") counter.watch("udp", kcpGo.port);
  console.error(`KCP: ${CLIENTS} clients for ${SECONDS} s…`);
  const kcpSnapshots = await runAgent("kcp", {
    name: "seed kcp",
    target: { protocol: "kcp", host: "127.0.0.1", port: kcpGo.port, mode: "fast" },
    scenario: PING,
    load,
    network: [LOSSY_LINK],
  });
  const kcp = pingResult("KCP (fast) → kcp-go echo", kcpSnapshots, ip("udp", kcpGo.port) * steadyShare);
  await kcpGo.close();
  if (typeof counter !== "string") counter.close();

  console.log(
    `\n### Ping: ${CLIENTS} clients, one ping / 100 ms with its send time, 20 ms each way, 10% loss each way, ${SECONDS} s each (first ${SETTLE_SEC} s left out)\n`,
  );
  console.log(
    "| transport → server | pongs | skipped sends | p50 | p99 | max | p99 from intended send | retransmissions | datagrams/packets dropped | payload bytes | IP bytes on the wire (kernel) | KCP's own wire bytes | the rig |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |");
  for (const r of [tcp, kcp]) {
    console.log(
      `| ${r.label} | ${fmt(r.answered)} | ${fmt(r.skipped)} | ${fmt(r.p50, 1)} ms | ${fmt(r.p99, 1)} ms | ${fmt(r.max, 1)} ms | ${fmt(r.correctedP99, 1)} ms | ${r.retransmits} | ${fmt(r.dropped)} | ${fmt(r.payloadBytes)} | ${fmt(r.ipBytes)} | ${r.kcpWireBytes === null ? "—" : fmt(r.kcpWireBytes)} | ${r.health} |`,
    );
  }
  const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : Number.NaN);
  const perPong = (r: PingResult) => r.ipBytes / Math.max(1, r.answered);
  console.log(`\n| figure | seed's finding | measured |`);
  console.log("| --- | --- | ---: |");
  console.log(`| KCP latency ÷ TCP latency, p50 | ≈ 1/3 | ${fmt(ratio(kcp.p50, tcp.p50), 2)} |`);
  console.log(`| KCP latency ÷ TCP latency, p99 | ≈ 1/3 | ${fmt(ratio(kcp.p99, tcp.p99), 2)} |`);
  console.log(`| KCP's worst round trip | < 300 ms | ${fmt(kcp.max, 1)} ms |`);
  console.log(
    `| KCP's bandwidth over TCP's (IP bytes per pong answered) | +8–10 % | ${signed((ratio(perPong(kcp), perPong(tcp)) - 1) * 100)} |`,
  );
}

async function roomTest(): Promise<void> {
  // 10 players at 20 Hz: 180 broadcasts a second to each, over a round trip up to ~260 ms on the cohort: more than
  // KCP's default 32-segment windows carry, so both ends get 256.
  const server = await startKcpGoServer("room", { mode: "fast", sndwnd: 256, rcvwnd: 256 });
  console.error(`Rooms: ${PLAYERS} players for ${SECONDS} s…`);
  const snapshots = await runAgent(
    "rooms",
    {
      name: "seed rooms",
      target: {
        protocol: "kcp",
        host: "127.0.0.1",
        port: server.port,
        mode: "fast",
        sendWindow: 256,
        receiveWindow: 256,
      },
      scenario: { kind: "movement-sync", roomSize: 10, updateHz: 20, messageBytes: 64 },
      load: { clients: PLAYERS, durationSec: SECONDS, rampUpSec: 2 },
      // "loopback" has no conditions: a cohort of its own only so its broadcasts' histogram is apart from mobile's.
      network: [
        { name: "mobile", share: 0.3, delayMs: 100, jitterMs: 30, lossPercent: 5 },
        { name: "loopback", share: 0.7 },
      ],
    },
    [],
  );
  await server.close();
  const seconds = steady(snapshots);
  console.log(
    `\n### Rooms: ${PLAYERS} players in rooms of 10 at 20 Hz over KCP (fast, windows 256) → kcp-go room server, ${SECONDS} s (first ${SETTLE_SEC} s left out)\n`,
  );
  console.log(`The rig: ${agentHealth(seconds)}.\n`);
  console.log(
    "| cohort | players | broadcast p50 | p99 | max | reach | lost | KCP retransmissions | KCP overhead over payload |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const [name, words] of [
    ["mobile", "mobile: 100 ± 30 ms each way, 5% loss"],
    ["loopback", "the rest: the rig's loopback"],
  ] as const) {
    const parts = cohortParts(seconds, name);
    const broadcast = histogram(parts, "broadcastUs");
    const kcp = kcpOf(parts);
    const players = Math.max(0, ...seconds.map((s) => s.cohorts?.[name]?.clients ?? 0));
    const reach = sum(parts, "broadcastsReceived") / Math.max(1, sum(parts, "broadcastsExpected"));
    console.log(
      `| ${words} | ${fmt(players)} | ${fmt(ms(broadcast, 50), 1)} ms | ${fmt(ms(broadcast, 99), 1)} ms | ${fmt(ms(broadcast, "max"), 1)} ms | ${fmt(reach * 100, 2)} % | ${fmt(sum(parts, "lost"))} | ${fmt(kcp?.retransmits ?? Number.NaN)} | ${signed(kcp?.overheadPercent ?? null)} |`,
    );
  }
}

console.error(
  `bench:kcp on ${new Date().toISOString()}, load average ${loadavg()
    .map((n) => n.toFixed(1))
    .join(" ")}; building kcp-go's servers…`,
);
await kcpTestServerBinary();
if (ONLY !== "rooms") await pingTest();
if (ONLY !== "ping") await roomTest();
console.log(`\nCommand: npm run bench:kcp -- ${process.argv.slice(2).join(" ")}`.trimEnd());
