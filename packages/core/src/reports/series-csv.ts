import type { ErrorSampleView } from "@throng/protocol/error-samples";
import { kcpFigures } from "@throng/protocol/kcp-figures";
import type { SeriesPoint } from "@throng/protocol/snapshot";

type Column = [string, (p: SeriesPoint) => unknown];

const COLUMNS: Column[] = [
  ["time", (p) => new Date(p.t * 1000).toISOString()],
  ["agents", (p) => p.agents],
  ["clients", (p) => p.clients],
  ["connections", (p) => p.connections],
  ["messages_sent_per_sec", (p) => p.messagesSentPerSec],
  ["messages_received_per_sec", (p) => p.messagesReceivedPerSec],
  ["bytes_sent_per_sec", (p) => p.bytesSentPerSec],
  ["bytes_received_per_sec", (p) => p.bytesReceivedPerSec],
  ["errors", (p) => p.errors],
  ["rtt_p50_ms", (p) => p.rttP50Ms],
  ["rtt_p90_ms", (p) => p.rttP90Ms],
  ["rtt_p99_ms", (p) => p.rttP99Ms],
  ["rtt_max_ms", (p) => p.rttMaxMs],
  ["rtt_corrected_p99_ms", (p) => p.latency?.rttCorrected?.p99Ms],
  ["connect_p99_ms", (p) => p.latency?.connect?.p99Ms],
  ["login_p99_ms", (p) => p.latency?.login?.p99Ms],
  ["broadcast_p99_ms", (p) => p.latency?.broadcast?.p99Ms],
  ["broadcast_reach", (p) => p.broadcastReach],
  ["lost", (p) => p.lost],
  ["step", (p) => p.step],
];

/** A KCP target's protocol figures per second (PROTOCOL.md §5); only in a KCP run's export. */
const KCP_COLUMNS: Column[] = [
  ["kcp_retransmits", (p) => p.kcpRetransmits],
  ["kcp_fast_retransmits", (p) => p.kcpFastRetransmits],
  ["kcp_rto_expiries", (p) => p.kcpRtoExpiries],
  ["kcp_wire_bytes_sent", (p) => p.kcpWireBytesSent],
  ["kcp_wire_bytes_received", (p) => p.kcpWireBytesReceived],
  ["kcp_payload_bytes_sent", (p) => p.kcpPayloadBytesSent],
  ["kcp_payload_bytes_received", (p) => p.kcpPayloadBytesReceived],
  ["kcp_overhead_percent", (p) => roundedPercent(kcpFigures(p)?.overheadPercent)],
];

const roundedPercent = (value: number | null | undefined) =>
  value === null || value === undefined ? value : Math.round(value * 10) / 10;

function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The per-second series as CSV (RFC 4180), one row per second, empty cells where nothing was measured; a KCP run's with its kcp_* columns. */
export function seriesCsv(points: readonly SeriesPoint[]): string {
  const columns = points.some((p) => p.kcpWireBytesSent !== undefined) ? [...COLUMNS, ...KCP_COLUMNS] : COLUMNS;
  const header = columns.map(([name]) => name).join(",");
  const rows = points.map((p) => columns.map(([, pick]) => cell(pick(p))).join(","));
  return `${[header, ...rows].join("\n")}\n`;
}

const SAMPLE_COLUMNS: [string, (s: ErrorSampleView) => unknown][] = [
  ["time", (s) => new Date(s.at).toISOString()],
  ["since_start_ms", (s) => s.sinceStartMs],
  ["kind", (s) => s.kind],
  ["message", (s) => s.message],
  ["client", (s) => s.client],
  ["agent_id", (s) => s.agentId],
  ["bytes_length", (s) => s.bytes?.length],
  ["bytes_hex", (s) => s.bytes?.hex],
];

/** The run's error samples as CSV (RFC 4180), one row per sample in the order they happened; the bytes as hex. */
export function errorSamplesCsv(samples: readonly ErrorSampleView[]): string {
  const header = SAMPLE_COLUMNS.map(([name]) => name).join(",");
  const rows = samples.map((s) => SAMPLE_COLUMNS.map(([, pick]) => cell(pick(s))).join(","));
  return `${[header, ...rows].join("\n")}\n`;
}
