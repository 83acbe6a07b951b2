// Synthetic data for the run-page benchmark: a live run with `seconds` of history at one point per second,
// every optional series filled (p90, corrected RTT, connect latency, per-agent health), as the API serves it.
import type { AgentView, Me } from "@throng/protocol/api";
import type { RunView } from "@throng/protocol/run";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import type { LatencyDistribution } from "@throng/protocol/latency-distribution";

export const RUN_ID = "00000000-0000-4000-8000-00000000be0c";
const PLAN_ID = "00000000-0000-4000-8000-0000000001a0";
export const AGENT_IDS = [1, 2, 3, 4].map((n) => `00000000-0000-4000-8000-0000000000a${n}`);

export const me: Me = {
  user: { id: "u1", email: "bench@example.com", name: "Bench" },
  organization: { id: "o1", name: "Bench org", slug: "bench" },
  role: "owner",
};

export const agents: AgentView[] = AGENT_IDS.map((id, index) => ({
  id,
  hostname: `rig-${index + 1}`,
  os: "linux",
  arch: "x64",
  cores: 8,
  memoryBytes: 16 * 1024 ** 3,
  version: "0.1.0",
  status: "busy",
  labels: { region: "eu-west" },
  lastSeenAt: new Date().toISOString(),
  currentRunId: RUN_ID,
  ip: `10.0.0.${index + 1}`,
}));

/** A run that started `seconds` ago and still has ten minutes to go. */
export function liveRun(seconds: number, now: number): RunView {
  const startedAt = new Date(now - seconds * 1000).toISOString();
  return {
    id: RUN_ID,
    planId: PLAN_ID,
    planName: "Soak, one point per second",
    status: "running",
    spec: {
      name: "Soak, one point per second",
      target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
      scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 64 },
      load: { clients: 20_000, durationSec: seconds + 600, rampUpSec: 300 },
    },
    error: null,
    createdAt: startedAt,
    startedAt,
    endedAt: null,
    summary: null,
    events: [
      {
        at: new Date(now - (seconds / 2) * 1000).toISOString(),
        kind: "agent-lost",
        agentId: AGENT_IDS[3]!,
        message: "rig-4 stopped answering",
      },
    ],
    note: "",
    tags: [],
    notesEditedBy: null,
    notesEditedAt: null,
  };
}

/** The second `t` (epoch seconds) of a soak: wavy rates and latencies so every line has shape. */
export function point(t: number, index: number): SeriesPoint {
  const wave = Math.sin(index / 60);
  const rtt = 4 + 2 * wave + (index % 97 === 0 ? 40 : 0);
  return {
    t,
    agents: 4,
    clients: Math.min(20_000, index * 70),
    connections: Math.min(20_000, index * 70) - (index % 13),
    messagesSentPerSec: 20_000 + 500 * wave,
    messagesReceivedPerSec: 19_950 + 500 * wave,
    bytesSentPerSec: 1_280_000 + 30_000 * wave,
    bytesReceivedPerSec: 1_276_000 + 30_000 * wave,
    errors: index % 211 === 0 ? 3 : 0,
    rttP50Ms: rtt,
    rttP90Ms: rtt * 1.6,
    rttP99Ms: rtt * 3,
    rttMaxMs: rtt * 6,
    latency: {
      rttCorrected: { count: 20_000, p50Ms: rtt, p90Ms: rtt * 1.8, p99Ms: rtt * 3.5, maxMs: rtt * 8 },
      connect: { count: 70, p50Ms: 2, p90Ms: 3, p99Ms: 5 + wave, maxMs: 9 },
    },
    agentHealth: AGENT_IDS.map((agentId, n) => ({
      agentId,
      cpuPercent: 180 + 40 * n + 30 * wave,
      eventLoopP99Ms: 12 + n,
      rssBytes: 300 * 1024 ** 2,
    })),
  };
}

export function history(seconds: number, now: number): SeriesPoint[] {
  const start = Math.floor(now / 1000) - seconds;
  return Array.from({ length: seconds }, (_, index) => point(start + index, index));
}

/**
 * What GET /api/runs/:id/distribution answers for `seconds` of a soak's round trips: 20,000 a second around a
 * median that drifts with the same wave as the series, a slow tail, ten buckets a decade from 0.3 ms to 3 s, the
 * heatmap merged to at most 900 columns as the API merges it. Percentiles read from the buckets' cumulative counts.
 * With a range (the zoom's ?from=&to=), the distribution of that many seconds.
 */
export function distribution(seconds: number, range?: { from: number; to: number }): LatencyDistribution {
  // A range answers its own seconds, its columns numbered from its start, as the API does.
  if (range) {
    const part = distribution(range.to - range.from);
    const columnStart = part.heatmap.columnStart.map((start) => start + range.from);
    return { ...part, ...range, heatmap: { ...part.heatmap, columnStart } };
  }
  const FIRST = 25;
  const WIDTH = 40;
  const perColumn = Math.max(1, Math.ceil(seconds / 900));
  const columnStart: number[] = [];
  const heat: number[][] = [];
  for (let start = 0; start < seconds; start += perColumn) {
    const wave = Math.sin(start / 60);
    const mode = 11 + 2 * wave; // bucket offset of ~4 ms, as the series' p50
    columnStart.push(start);
    heat.push(
      Array.from({ length: WIDTH }, (_, i) =>
        Math.round(
          perColumn *
            (18_000 * Math.exp(-((i - mode) ** 2) / 6) + (i > mode + 4 && i < mode + 20 ? 120 / (i - mode) : 0)),
        ),
      ),
    );
  }
  const counts = Array.from({ length: WIDTH }, (_, i) => heat.reduce((sum, column) => sum + column[i]!, 0));
  const total = counts.reduce((a, b) => a + b, 0);
  const at = (share: number) => {
    let cumulative = 0;
    const i = counts.findIndex((count) => {
      cumulative += count;
      return cumulative >= share * total;
    });
    return Math.round(10 ** ((FIRST + i + 1) / 10)) / 1000;
  };
  const maxIndex = counts.findLastIndex((count) => count > 0);
  return {
    runId: RUN_ID,
    metric: "rtt",
    from: 0,
    to: seconds,
    stats: {
      count: total,
      p50Ms: at(0.5),
      p90Ms: at(0.9),
      p99Ms: at(0.99),
      maxMs: Math.round(10 ** ((FIRST + maxIndex + 1) / 10)) / 1000,
    },
    firstBucket: FIRST,
    counts,
    heatmap: { secondsPerColumn: perColumn, columnStart, counts: heat, maxCount: Math.max(...heat.flat()) },
  };
}
