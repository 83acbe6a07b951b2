import type { ErrorSampleView } from "@throng/protocol/error-samples";
import type { SeriesPoint } from "@throng/protocol/snapshot";

const COLUMNS: [string, (p: SeriesPoint) => unknown][] = [
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

function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The per-second series as CSV (RFC 4180), one row per second, empty cells where nothing was measured. */
export function seriesCsv(points: readonly SeriesPoint[]): string {
  const header = COLUMNS.map(([name]) => name).join(",");
  const rows = points.map((p) => COLUMNS.map(([, pick]) => cell(pick(p))).join(","));
  return [header, ...rows].join("\n") + "\n";
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
  return [header, ...rows].join("\n") + "\n";
}
