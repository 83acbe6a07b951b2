import { z } from "zod";
import { ServerWatchSnapshot } from "./snapshot";

/**
 * In a plan: watch the server under test during the run. Online watcher agents (`throng-agent watch --server …`)
 * carrying every label each get a watch shard; a run that asks for one when none is online fails at start.
 */
export const ServerWatchPlan = z.object({
  /** Only watchers carrying every one of these labels (`role=server`); empty: every online watcher. */
  labels: z.record(z.string().min(1), z.string()).optional(),
});
export type ServerWatchPlan = z.infer<typeof ServerWatchPlan>;

/**
 * agent → server, once a second of a run from a watcher (agent/PROTOCOL.md §11): the watched process's second `seq`
 * (seconds since the run's startAt, on the same grid as the load's snapshots). Acknowledged by `snapshot-ack`;
 * stored idempotently on (run, agent, seq).
 */
export const ServerSample = ServerWatchSnapshot.extend({ runId: z.string().uuid() });
export type ServerSample = z.infer<typeof ServerSample>;

/** One watched second as the browser gets it: the sample, whose watcher, and the epoch second it covers. */
export const ServerPoint = ServerWatchSnapshot.omit({ seq: true }).extend({
  /** Epoch seconds (server clock), the same key as SeriesPoint.t. */
  t: z.number().int(),
  seq: z.number().int().min(0),
  agentId: z.string().uuid(),
});
export type ServerPoint = z.infer<typeof ServerPoint>;

/** The fields of a server sample a summary needs (a ServerWatchSnapshot or a stored server point). */
export interface ServerSampleFigures {
  /** Start of the sample's second, epoch milliseconds. */
  intervalStart: number;
  cpuPercent: number;
  rssBytes: number;
  network: { packetsInPerSec: number; packetsOutPerSec: number };
}

/** The server under test over a whole run: what the standalone summary prints and the report shows. */
export const ServerWatchSummary = z.object({
  seconds: z.number().int().min(0),
  cpuPeakPercent: z.number().min(0),
  cpuMeanPercent: z.number().min(0),
  rssStartBytes: z.number().int().min(0),
  rssEndBytes: z.number().int().min(0),
  rssPeakBytes: z.number().int().min(0),
  /** Least-squares slope of RSS over the run, bytes per minute: a leak shows as a steady climb. */
  rssGrowthBytesPerMin: z.number(),
  /** True when RSS climbed steadily (see MEMORY_CLIMB in server-watch.ts), worth a look for a leak. */
  memoryClimb: z.boolean(),
  /** Host packets per second, in + out. */
  packetsPeakPerSec: z.number().min(0),
  packetsMeanPerSec: z.number().min(0),
});
export type ServerWatchSummary = z.infer<typeof ServerWatchSummary>;

/**
 * A climb worth flagging: at least 10 samples, a fitted growth of 1 MiB/min or more, and a fitted rise over the run of
 * at least 2% of the starting RSS. Below these a garbage-collected server's RSS wanders without meaning anything.
 */
export const MEMORY_CLIMB = { minSamples: 10, minBytesPerMin: 1_048_576, minRelativeGrowth: 0.02 } as const;

/** GET /api/runs/:id/server: every watched second so far, and the summary once there is any. */
export const RunServerSeries = z.object({
  runId: z.string().uuid(),
  points: z.array(ServerPoint),
  summary: ServerWatchSummary.nullable(),
});
export type RunServerSeries = z.infer<typeof RunServerSeries>;

const round1 = (n: number) => Math.round(n * 10) / 10;

/** Slope of y over x (x in minutes) by least squares; 0 with fewer than two distinct x. */
function slopePerMinute(points: Array<{ x: number; y: number }>): number {
  const n = points.length;
  if (n < 2) return 0;
  const meanX = points.reduce((s, p) => s + p.x, 0) / n;
  const meanY = points.reduce((s, p) => s + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - meanX) * (p.y - meanY);
    den += (p.x - meanX) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** Summarises a run's server samples (in time order); undefined when there are none. */
export function summariseServerWatch(samples: readonly ServerSampleFigures[]): ServerWatchSummary | undefined {
  const first = samples[0];
  const last = samples[samples.length - 1];
  if (!first || !last) return undefined;
  const packets = samples.map((s) => s.network.packetsInPerSec + s.network.packetsOutPerSec);
  const growth = slopePerMinute(
    samples.map((s) => ({ x: (s.intervalStart - first.intervalStart) / 60_000, y: s.rssBytes })),
  );
  const minutes = (last.intervalStart - first.intervalStart) / 60_000;
  return {
    seconds: samples.length,
    cpuPeakPercent: round1(Math.max(...samples.map((s) => s.cpuPercent))),
    cpuMeanPercent: round1(samples.reduce((sum, s) => sum + s.cpuPercent, 0) / samples.length),
    rssStartBytes: first.rssBytes,
    rssEndBytes: last.rssBytes,
    rssPeakBytes: Math.max(...samples.map((s) => s.rssBytes)),
    rssGrowthBytesPerMin: Math.round(growth),
    memoryClimb:
      samples.length >= MEMORY_CLIMB.minSamples &&
      growth >= MEMORY_CLIMB.minBytesPerMin &&
      growth * minutes >= first.rssBytes * MEMORY_CLIMB.minRelativeGrowth,
    packetsPeakPerSec: Math.max(...packets),
    packetsMeanPerSec: Math.round(packets.reduce((a, b) => a + b, 0) / packets.length),
  };
}

const mib = (bytes: number) => (bytes / 1_048_576).toFixed(1);

/** One human line for a summary: CPU, RSS start → end with its growth, packets/s; names a climb. */
export function serverWatchText(summary: ServerWatchSummary): string {
  const growth = summary.rssGrowthBytesPerMin;
  return [
    `CPU peak ${summary.cpuPeakPercent}% mean ${summary.cpuMeanPercent}%`,
    `RSS ${mib(summary.rssStartBytes)} → ${mib(summary.rssEndBytes)} MiB (peak ${mib(summary.rssPeakBytes)}, ${growth >= 0 ? "+" : ""}${mib(growth)} MiB/min)`,
    `packets/s peak ${summary.packetsPeakPerSec} mean ${summary.packetsMeanPerSec}`,
    ...(summary.memoryClimb ? ["MEMORY CLIMBING: a possible leak"] : []),
  ].join(", ");
}
