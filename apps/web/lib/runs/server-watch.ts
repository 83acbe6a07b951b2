import type { ServerPoint, ServerWatchSummary } from "@throng/protocol/server-watch";
import { formatFixed } from "../shared/format";
import type { ChartLine } from "../charts/series";

/** Merges watched seconds, one per (watcher, seq), sorted by time; a repeat (a refetch) replaces the held one. */
export function mergeServerPoints(current: readonly ServerPoint[], incoming: readonly ServerPoint[]): ServerPoint[] {
  if (incoming.length === 0) return current as ServerPoint[];
  const byKey = new Map<string, ServerPoint>();
  for (const point of [...current, ...incoming]) byKey.set(`${point.agentId}:${point.seq}`, point);
  return [...byKey.values()].sort((a, b) => a.t - b.t || a.agentId.localeCompare(b.agentId));
}

/** The watchers that sent points, in the order they first appear: one set of lines each. */
export function watcherIds(points: readonly ServerPoint[]): string[] {
  return [...new Set(points.map((p) => p.agentId))];
}

const MiB = 1_048_576;
const COLOURS = ["#cf222e", "#0969da", "#1a7f37", "#9a6700"];

function perWatcher(
  ids: readonly string[],
  name: (id: string) => string,
  label: string,
  read: (p: ServerPoint) => number,
): ChartLine<ServerPoint>[] {
  return ids.map((id, index) => ({
    label: ids.length > 1 ? `${name(id)} ${label}` : label,
    color: COLOURS[index % COLOURS.length]!,
    value: (p) => (p.agentId === id ? read(p) : null),
  }));
}

/** The server's three charts: its CPU (100 % = one core), its memory (a leak shows as a climb), the host's packets. */
export function serverLines(ids: readonly string[], name: (id: string) => string) {
  return {
    cpu: perWatcher(ids, name, "CPU %", (p) => p.cpuPercent),
    rss: perWatcher(ids, name, "RSS MiB", (p) => Math.round((p.rssBytes / MiB) * 10) / 10),
    packets: [
      ...perWatcher(ids, name, "packets in/s", (p) => p.network.packetsInPerSec),
      ...perWatcher(ids, name, "packets out/s", (p) => p.network.packetsOutPerSec).map((line) => ({
        ...line,
        dash: [6, 4],
      })),
    ],
  };
}

/** One sentence for the summary: CPU, memory start → end with its growth per minute, packets/s, and a climb named. */
export function serverSentence(summary: ServerWatchSummary): string {
  const mib = (bytes: number) => formatFixed(bytes / MiB, 1);
  const growth = summary.rssGrowthBytesPerMin;
  const parts = [
    `CPU peak ${summary.cpuPeakPercent} % (mean ${summary.cpuMeanPercent} %)`,
    `memory ${mib(summary.rssStartBytes)} → ${mib(summary.rssEndBytes)} MiB (${growth >= 0 ? "+" : ""}${mib(growth)} MiB/min)`,
    `packets peak ${summary.packetsPeakPerSec}/s`,
  ];
  return `${parts.join(", ")}.${summary.memoryClimb ? " Memory climbed steadily through the run: look for a leak." : ""}`;
}
