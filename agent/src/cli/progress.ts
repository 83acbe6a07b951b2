import type { MetricSnapshot, ServerWatchSnapshot } from "@throng/protocol/snapshot";
import { decodeHistogram } from "../metrics/histogram";
import { VERDICT_OUTCOME_WORDS, type RunVerdict, type SloVerdict } from "@throng/protocol/report";
import type { CohortSummary, RunSummary } from "@throng/protocol/run";
import { sloCountsOfSummary } from "@throng/protocol/slo-metrics";
import { PLAIN_SLO_FORMAT, sloValueText } from "@throng/protocol/slo-names";
import type { KcpCounters, LatencyStats } from "@throng/protocol/snapshot";
import type { LocalFigures, StepSummary } from "../metrics/run-summary";
import { serverWatchText, type ServerWatchSummary } from "@throng/protocol/server-watch";
import { kcpSummaryText } from "@throng/protocol/kcp-figures";

function rate(n: number): string {
  return n >= 10_000 ? `${(n / 1000).toFixed(0)}k` : n >= 1_000 ? `${(n / 1000).toFixed(1)}k` : String(Math.round(n));
}

function percentileMs(encoded: string | undefined, p: number): string {
  if (!encoded) return "-";
  const histogram = decodeHistogram(encoded);
  return histogram.totalCount === 0 ? "-" : (histogram.getValueAtPercentile(p) / 1000).toFixed(2);
}

const mib = (bytes: number) => (bytes / 1_048_576).toFixed(1);

/** The watched server's same second: its CPU and memory, and the host's packets. */
function serverPart(server: ServerWatchSnapshot): string {
  const n = server.network;
  return `server cpu ${server.cpuPercent.toFixed(0)}% rss ${mib(server.rssBytes)} MiB pkt/s in ${rate(n.packetsInPerSec)} out ${rate(n.packetsOutPerSec)}`;
}

/** One line per second: what the run is doing, the watched server if any, and whether the agent itself is the limit. */
export function progressLine(snapshot: MetricSnapshot & { server?: ServerWatchSnapshot }): string {
  const { counters: c, histograms: h, health } = snapshot;
  const perSec = 1000 / snapshot.intervalMs;
  const parts = [
    `${String(snapshot.seq + 1).padStart(4)}s`,
    `clients ${snapshot.clients} open ${c.connectionsOpen} (+${c.connectionsOpened} -${c.connectionsClosed} ✗${c.connectionsFailed})`,
    `msg/s out ${rate(c.messagesSent * perSec)} in ${rate(c.messagesReceived * perSec)}`,
    `rtt p50 ${percentileMs(h.rttUs, 50)} p99 ${percentileMs(h.rttUs, 99)} ms`,
  ];
  if (h.rttCorrectedUs) parts.push(`corrected p99 ${percentileMs(h.rttCorrectedUs, 99)}`);
  if (h.broadcastUs)
    parts.push(
      `broadcast p99 ${percentileMs(h.broadcastUs, 99)} ms reach ${c.broadcastsExpected ? ((100 * (c.broadcastsReceived ?? 0)) / c.broadcastsExpected).toFixed(1) : "-"}%`,
    );
  if (h.connectUs) parts.push(`connect p99 ${percentileMs(h.connectUs, 99)} ms`);
  if (h.loginUs) parts.push(`login p99 ${percentileMs(h.loginUs, 99)} ms`);
  if (c.errors) parts.push(`errors ${c.errors} ${JSON.stringify(c.errorsByKind ?? {})}`);
  parts.push(`cpu ${health.cpuPercent.toFixed(0)}% loop ${health.eventLoopP99Ms.toFixed(1)}ms`);
  // Hypervisor steal skews every timing on this host: shown once it is more than noise.
  if (health.stealPercent !== undefined && health.stealPercent >= 1)
    parts.push(`steal ${health.stealPercent.toFixed(0)}%`);
  if (snapshot.server) parts.push(serverPart(snapshot.server));
  if (health.saturated) parts.push(`AGENT SATURATED: ${health.saturatedReason}`);
  return parts.join(" | ");
}

const COLUMNS = [
  "sec",
  "clients",
  "open",
  "out/s",
  "in/s",
  "p50 ms",
  "p99 ms",
  "corr p99",
  "errors",
  "cpu %",
  "loop ms",
] as const;
const WIDTHS = [5, 8, 8, 8, 8, 8, 8, 9, 7, 6, 8];
/** With a watched server: its CPU, RSS and the host's packets in, before the saturation flag. */
const SERVER_COLUMNS = ["srv cpu%", "srv MiB", "pkt/s in"] as const;
const SERVER_WIDTHS = [8, 8, 8];
/** A header every this many rows, so it stays on screen. */
const HEADER_EVERY = 20;

function row(cells: readonly string[], widths: readonly number[]): string {
  return cells
    .map((cell, i) => cell.padStart(widths[i] ?? 0))
    .join(" ")
    .trimEnd();
}

/**
 * On a terminal: a compact table, a header every 20 seconds, the saturation flag at the end of the row.
 * `watching`: the run watches a server, so its columns are there (blank in a second it was not sampled).
 */
export function progressTableRows(
  snapshot: MetricSnapshot & { server?: ServerWatchSnapshot },
  rowIndex: number,
  watching = false,
): string[] {
  const { counters: c, histograms: h, health } = snapshot;
  const perSec = 1000 / snapshot.intervalMs;
  const cells = [
    String(snapshot.seq + 1),
    String(snapshot.clients),
    String(c.connectionsOpen),
    rate(c.messagesSent * perSec),
    rate(c.messagesReceived * perSec),
    percentileMs(h.rttUs, 50),
    percentileMs(h.rttUs, 99),
    percentileMs(h.rttCorrectedUs, 99),
    String(c.errors + c.connectionsFailed),
    health.cpuPercent.toFixed(0),
    health.eventLoopP99Ms.toFixed(1),
  ];
  const server = snapshot.server;
  const serverCells = server
    ? [server.cpuPercent.toFixed(0), mib(server.rssBytes), rate(server.network.packetsInPerSec)]
    : ["-", "-", "-"];
  const widths = watching ? [...WIDTHS, ...SERVER_WIDTHS, 0] : [...WIDTHS, 0];
  const flag = health.saturated ? `SATURATED: ${health.saturatedReason}` : "";
  const line = row([...cells, ...(watching ? serverCells : []), flag], widths);
  return rowIndex % HEADER_EVERY === 0
    ? [row([...COLUMNS, ...(watching ? SERVER_COLUMNS : []), ""], widths), line]
    : [line];
}

function latencyLine(
  name: string,
  stats: Pick<LatencyStats, "count" | "p50Ms" | "p99Ms" | "maxMs"> | undefined,
): string | undefined {
  if (!stats || stats.count === 0) return undefined;
  return `  ${name.padEnd(22)} p50 ${stats.p50Ms} ms  p99 ${stats.p99Ms} ms  max ${stats.maxMs} ms  (${stats.count} samples)`;
}

function kcpLine(figures: KcpCounters): string | undefined {
  const text = kcpSummaryText(figures);
  return text && `  kcp                    ${text}`;
}

const sloValue = (metric: string, value: number | null) =>
  value === null ? "no data" : sloValueText(metric, value, PLAIN_SLO_FORMAT);

/** What "above-stream" means, said wherever a cohort's figures are shown. */
const ABOVE_STREAM = "ABOVE TCP: TCP saw the rig's round trip, so it recovered faster than on the network asked for";

/** One cohort's lines in the final summary: its figures (the run summary's, over its clients), and what its network did. */
export function cohortSummaryText(name: string, cohort: CohortSummary): string {
  const packets = cohort.networkPackets ?? 0;
  const percent = (n: number | undefined) => (packets ? `${(((n ?? 0) * 100) / packets).toFixed(2)}%` : "0%");
  const latency = cohort.latency ?? {};
  const reach = cohort.broadcastReach;
  const { applied } = cohort;
  const lines = [
    `cohort ${name} (${applied === "above-stream" ? ABOVE_STREAM : applied === "kernel" ? "below TCP, through the kernel's queue" : "each datagram"}): peak ${cohort.peakClients} clients`,
    `  messages               sent ${cohort.messagesSent}, received ${cohort.messagesReceived}; errors ${cohort.errors} ${JSON.stringify(cohort.errorsByKind ?? {})}${cohort.lost !== undefined ? `, lost ${cohort.lost}` : ""}`,
    latencyLine("round trip", {
      count: cohort.roundTrips ?? 0,
      p50Ms: cohort.rttP50Ms,
      p99Ms: cohort.rttP99Ms,
      maxMs: cohort.rttMaxMs,
    }),
    latencyLine("broadcast", latency.broadcast),
    latencyLine("connect", latency.connect),
    latencyLine("login", latency.login),
    reach !== null && reach !== undefined
      ? `  broadcast reach        ${(reach * 100).toFixed(2)}%, duplicates ${cohort.duplicates ?? 0}, out of order ${cohort.outOfOrder ?? 0}`
      : undefined,
    kcpLine(cohort),
    cohort.tcpRetransmits !== undefined
      ? `  tcp                    ${cohort.tcpRetransmits} segments retransmitted by TCP itself (TCP_INFO of the cohort's sockets)`
      : undefined,
    `  network                ${packets} packets: dropped ${cohort.networkDropped ?? 0} (${percent(cohort.networkDropped)}), duplicated ${cohort.networkDuplicated ?? 0}, reordered ${cohort.networkReordered ?? 0}, over the link's backlog ${cohort.networkOverflowed ?? 0}`,
  ];
  return lines.filter((line) => line !== undefined).join("\n");
}

/** The final summary (the control plane's summary of the same seconds, and what only this agent knows), and each SLO's verdict. */
export function summaryText(summary: RunSummary, local: LocalFigures, slos: readonly SloVerdict[]): string {
  const latency = summary.latency ?? {};
  const roundTrip = {
    count: summary.roundTrips ?? 0,
    p50Ms: summary.rttP50Ms,
    p99Ms: summary.rttP99Ms,
    maxMs: summary.rttMaxMs,
  };
  const reconnects = summary.reconnectsByCause ?? {};
  const errorRate = sloCountsOfSummary(summary).errorRate ?? 0;
  const reach = summary.broadcastReach;
  const lines = [
    `summary: ${summary.durationSec} s, peak ${summary.peakClients} clients`,
    `  connections            opened ${summary.connectionsOpened ?? 0}, failed ${summary.connectionsFailed}, closed ${local.connectionsClosed} ${JSON.stringify(local.closesByCause)}`,
    Object.keys(reconnects).length > 0
      ? `  reconnects             ${Object.values(reconnects).reduce((a, b) => a + b, 0)} by cause of the drop ${JSON.stringify(reconnects)}`
      : undefined,
    `  messages               sent ${summary.messagesSent} (${local.bytesSent} B), received ${summary.messagesReceived} (${local.bytesReceived} B)`,
    `  errors                 ${summary.errors} ${JSON.stringify(summary.errorsByKind ?? {})}; error rate ${(errorRate * 100).toFixed(3)}%`,
    latencyLine("round trip", roundTrip),
    latencyLine("round trip (corrected)", latency.rttCorrected),
    latencyLine("connect", latency.connect),
    latencyLine("login", latency.login),
    latencyLine("broadcast", latency.broadcast),
    latencyLine("jitter", latency.jitter),
    reach !== null && reach !== undefined
      ? `  broadcast reach        ${(reach * 100).toFixed(2)}%, lost ${summary.lost ?? 0}, duplicates ${summary.duplicates ?? 0}, out of order ${summary.outOfOrder ?? 0}`
      : undefined,
    summary.lateSends !== undefined
      ? `  sends                  late ${summary.lateSends}, skipped ${summary.skippedSends ?? 0}`
      : undefined,
    kcpLine(summary),
    `  agent                  max CPU ${local.maxCpuPercent}%, max RSS ${(local.maxRssBytes / 1048576).toFixed(0)} MiB, saturated ${local.saturatedSeconds} s`,
    // Made and skipped apart: a skipped send is not a send (docs/verdicts.md).
    summary.scheduledSends !== undefined
      ? `  schedule               ${summary.messagesSent} of ${summary.scheduledSends} scheduled sends made, ${summary.skippedSends ?? 0} skipped`
      : undefined,
    summary.inFlightAtEnd ? `  in flight at the end   ${summary.inFlightAtEnd} (not errors, not lost)` : undefined,
    ...slos.map(
      (r) =>
        `  SLO ${r.metric}${r.cohort === undefined ? "" : ` (cohort ${r.cohort})`} < ${sloValue(r.metric, r.below)}: ${sloValue(r.metric, r.value)} → ${r.status === "no-data" ? `NO DATA${r.note ? ` (${r.note})` : ""}` : r.passed ? "pass" : "FAIL"}`,
    ),
  ];
  return lines.filter((line) => line !== undefined).join("\n");
}

/** The step-up table: one row per step. */
export function stepsText(steps: StepSummary[]): string | undefined {
  if (steps.length === 0) return undefined;
  const lines = steps.map(
    (s) =>
      `  step ${String(s.step).padStart(3)}: ${String(s.clients).padStart(7)} clients, ${s.seconds} s, ${rate(s.receivedPerSec)} msg/s in, rtt p99 ${s.rttP99Ms ?? "-"} ms (corrected ${s.correctedP99Ms ?? "-"}), errors ${(s.errorRate * 100).toFixed(2)}%${s.agentSaturatedSeconds ? `, agent saturated ${s.agentSaturatedSeconds} s` : ""}`,
  );
  return ["steps:", ...lines].join("\n");
}

/** The watched server's lines of the final summary; a server that exited mid-run is said plainly. */
export function serverSummaryText(
  pid: number,
  summary: ServerWatchSummary | undefined,
  lastSeenSeq: number | undefined,
): string {
  const label = `  server (pid ${pid})`.padEnd(25);
  const lines = [`${label}${summary ? serverWatchText(summary) : "no samples"}`];
  if (lastSeenSeq !== undefined) {
    lines.push(
      `${label}EXITED during the run: ${lastSeenSeq < 0 ? "before the load started" : `last seen in second ${lastSeenSeq + 1}`}`,
    );
  }
  return lines.join("\n");
}

/** The run's verdict last, with every reason it is not a pass and every warning: what the exit code says, in words. */
export function verdictText(verdict: RunVerdict): string {
  const outcome = verdict.outcome ?? (verdict.passed ? "passed" : "breached");
  const lines = verdict.warnings.map((w) => `warning: ${w}`);
  lines.push(
    outcome === "passed"
      ? "verdict: PASSED (the load ran as planned; every SLO met over enough data)"
      : `verdict: ${VERDICT_OUTCOME_WORDS[outcome]} — ${verdict.reasons.join("; ")}`,
  );
  return lines.join("\n");
}
