import { SeriesPoint, type AgentHealthPoint } from "@throng/protocol/snapshot";
import type { RunEventView } from "@throng/protocol/run";

/** Both lists' agents, `incoming`'s copy first: an agent's health in a second never changes once stored. */
function unionHealth(
  held: readonly AgentHealthPoint[] | undefined,
  incoming: readonly AgentHealthPoint[] | undefined,
): AgentHealthPoint[] | undefined {
  if (!held?.length) return incoming as AgentHealthPoint[] | undefined;
  if (!incoming?.length) return held as AgentHealthPoint[];
  const byAgent = new Map(held.map((health) => [health.agentId, health]));
  for (const health of incoming) byAgent.set(health.agentId, health);
  return [...byAgent.values()];
}

/** `point` replacing `held` (the same second): its figures, and the agents' health of both. */
function replacePoint(held: SeriesPoint | undefined, point: SeriesPoint): SeriesPoint {
  const agentHealth = unionHealth(held?.agentHealth, point.agentHealth);
  return agentHealth ? { ...point, agentHealth } : point;
}

/**
 * Merges points into a series sorted by `t`. A point for a second already present replaces it (the API
 * re-merges a second when a late snapshot from another agent arrives), keeping the agents' health held for it:
 * live points carry none, it comes in "agent-health" messages (`addAgentHealth`) and with the fetched series.
 */
export function mergePoints(current: readonly SeriesPoint[], incoming: readonly SeriesPoint[]): SeriesPoint[] {
  if (incoming.length === 0) return current as SeriesPoint[];
  // The live case, once a second: the newest second, after everything held. Appending keeps an hour-long run cheap.
  const last = current[current.length - 1];
  const only = incoming.length === 1 ? incoming[0]! : null;
  if (only && (!last || only.t > last.t)) return [...current, only];
  if (only && only.t === last!.t) return [...current.slice(0, -1), replacePoint(last, only)];
  const byTime = new Map<number, SeriesPoint>();
  for (const point of current) byTime.set(point.t, point);
  for (const point of incoming) byTime.set(point.t, replacePoint(byTime.get(point.t), point));
  return [...byTime.values()].sort((a, b) => a.t - b.t);
}

/**
 * Adds a live "agent-health" message's agents to second `t`. Its point was published just before it; a second
 * not held (a message missed, which the seq gap turns into a refetch that brings the health too) is left alone.
 */
export function addAgentHealth(
  current: readonly SeriesPoint[],
  t: number,
  agents: readonly AgentHealthPoint[],
): SeriesPoint[] {
  let at = current.length - 1;
  while (at >= 0 && current[at]!.t > t) at -= 1; // nearly always the last second or the one before
  if (at < 0 || current[at]!.t !== t) return current as SeriesPoint[];
  const next = [...current];
  next[at] = { ...current[at]!, agentHealth: unionHealth(current[at]!.agentHealth, agents) };
  return next;
}

/** Anything charted against the run's seconds: a load SeriesPoint, or a watched server's ServerPoint. */
export interface TimedPoint {
  /** Epoch seconds. */
  t: number;
}

/** One line on a chart: its legend label, colour and how to read it from a point. */
export interface ChartLine<P extends TimedPoint = SeriesPoint> {
  label: string;
  color: string;
  /** Dashed lines are references (e.g. the clients asked for), drawn under the measured ones. */
  dash?: number[];
  value: (point: P) => number | null;
}

/** Column-wise data as uPlot wants it: x (epoch seconds) then one array per line. */
export function toColumns<P extends TimedPoint>(
  points: readonly P[],
  lines: readonly ChartLine<P>[],
): [number[], ...(number | null)[][]] {
  // One pass over the points for every line (a long run's first paint builds seven charts' columns at once).
  const xs = new Array<number>(points.length);
  const ys = lines.map(() => new Array<number | null>(points.length));
  for (let index = 0; index < points.length; index++) {
    const point = points[index]!;
    xs[index] = point.t;
    for (let line = 0; line < lines.length; line++) ys[line]![index] = lines[line]!.value(point);
  }
  return [xs, ...ys];
}

/**
 * Columns for `points` when they are `previous` plus one newer second (the live case): the previous columns
 * copied and extended, without reading every point again; otherwise built afresh. Every held point must be the
 * same object (a pointer check): an "agent-health" message replaces an older second's point in place, and may
 * land in the same render as a new second.
 */
export function extendColumns<P extends TimedPoint>(
  previous: { points: readonly P[]; lines: readonly ChartLine<P>[]; columns: (number | null)[][] } | null,
  points: readonly P[],
  lines: readonly ChartLine<P>[],
): (number | null)[][] {
  const held = previous?.points.length ?? 0;
  const appended =
    previous &&
    previous.lines === lines &&
    held > 0 &&
    points.length === held + 1 &&
    previous.points.every((point, index) => points[index] === point);
  if (!appended) return toColumns(points, lines);
  const point = points[held]!;
  return previous.columns.map((column, index) => [...column, index === 0 ? point.t : lines[index - 1]!.value(point)]);
}

/** The x range to show: the data, widened to `span` (epoch seconds) if given; null without data. */
export function xRange(xs: ArrayLike<number>, span?: readonly [number, number] | null): [number, number] | null {
  const first = xs[0];
  const last = xs[xs.length - 1];
  if (first === undefined || last === undefined) return null;
  const low = Math.min(first, span?.[0] ?? first);
  const high = Math.max(last, span?.[1] ?? last);
  return low === high ? [low - 1, high + 1] : [low, high];
}

/** Round-trip percentiles the series carries, read from the schema (`rttP50Ms`, `rttP90Ms`, …, `rttMaxMs`), lowest first. */
export function percentileKeys(shape: Readonly<Record<string, unknown>>): { key: string; label: string }[] {
  return Object.keys(shape)
    .map((key) => ({ key, match: /^rtt(?:P(\d+(?:_\d+)?)|(Max))Ms$/.exec(key) }))
    .filter((entry): entry is { key: string; match: RegExpExecArray } => entry.match !== null)
    .map(({ key, match }) => ({
      key,
      label: match[2] ? "max" : `p${match[1]!.replace("_", ".")}`,
      rank: match[2] ? Number.POSITIVE_INFINITY : Number(match[1]!.replace("_", ".")),
    }))
    .sort((a, b) => a.rank - b.rank)
    .map(({ key, label }) => ({ key, label }));
}

const PERCENTILE_COLOURS = ["#0969da", "#8250df", "#cf222e", "#953800", "#57606a"];

export const CONNECTION_LINES: ChartLine[] = [
  { label: "Clients", color: "#6e7781", dash: [6, 4], value: (p) => p.clients },
  { label: "Connections", color: "#0969da", value: (p) => p.connections },
];

export const MESSAGE_LINES: ChartLine[] = [
  { label: "Sent/s", color: "#1a7f37", value: (p) => p.messagesSentPerSec },
  { label: "Received/s", color: "#9a6700", value: (p) => p.messagesReceivedPerSec },
];

export const BYTE_LINES: ChartLine[] = [
  { label: "Sent", color: "#1a7f37", value: (p) => p.bytesSentPerSec },
  { label: "Received", color: "#9a6700", value: (p) => p.bytesReceivedPerSec },
];

/** p50, p99, max today; p90 and others join as soon as the series schema carries them. */
export const RTT_LINES: ChartLine[] = percentileKeys(SeriesPoint.shape).map(({ key, label }, index) => ({
  label,
  color: PERCENTILE_COLOURS[index % PERCENTILE_COLOURS.length]!,
  ...(label === "max" ? { dash: [2, 3] } : {}),
  value: (p) => (p as unknown as Record<string, number | null | undefined>)[key] ?? null,
}));

export const ERROR_LINES: ChartLine[] = [{ label: "Errors/s", color: "#cf222e", value: (p) => p.errors }];

export const AGENT_LINES: ChartLine[] = [{ label: "Agents reporting", color: "#8250df", value: (p) => p.agents }];

/** A moment worth a vertical line on every chart: a stage change, an agent lost, an abort, a note, a saturated agent. */
export interface TimeMarker {
  /** Epoch seconds. */
  t: number;
  /** The few words written beside its line on the plot. */
  label: string;
  kind: MarkedKind;
  /** The whole story (the event's message, the note's line), under the chart when the marker is hovered or focused. */
  detail?: string;
}

/**
 * Kinds a marker may have: a queued run's wait happens before its time axis begins, a judgement again after it ends;
 * a note's timed line and an agent's saturation are not events but are marked the same way (run-annotations.ts).
 */
type MarkedKind = Exclude<RunEventView["kind"], "queued" | "judged-again"> | "note" | "saturated";
type EventKind = Exclude<MarkedKind, "note" | "saturated">;
const isMarked = (event: RunEventView): event is RunEventView & { kind: EventKind } =>
  event.kind !== "seconds-lost" && event.kind !== "queued" && event.kind !== "judged-again";

const MARKER_WORDS: Record<EventKind, string> = {
  stage: "stage",
  "agent-lost": "agent lost",
  "agent-returned": "agent back",
  aborted: "aborted",
  "search-ended": "search done",
  "seconds-lost": "seconds lost",
};

export function eventMarkers(events: readonly RunEventView[]): TimeMarker[] {
  return (
    events
      // seconds-lost is recorded when the run closed, not when the seconds went missing: a marker would point at the wrong time.
      .filter(isMarked)
      .map((event) => ({
        t: Date.parse(event.at) / 1000,
        label: MARKER_WORDS[event.kind],
        kind: event.kind,
        ...(event.message ? { detail: event.message } : {}),
      }))
      .filter((marker) => Number.isFinite(marker.t))
      .sort((a, b) => a.t - b.t)
  );
}

/** Axis numbers: 1.2k, 3.4M; bytes as B, kB, MB, GB (decimal, as network rates are quoted). */
export function formatAxisCount(value: number): string {
  const size = Math.abs(value);
  if (size >= 1e9) return `${trim(value / 1e9)}G`;
  if (size >= 1e6) return `${trim(value / 1e6)}M`;
  if (size >= 1e3) return `${trim(value / 1e3)}k`;
  return trim(value);
}

export function formatAxisBytes(value: number): string {
  const size = Math.abs(value);
  if (size >= 1e9) return `${trim(value / 1e9)} GB`;
  if (size >= 1e6) return `${trim(value / 1e6)} MB`;
  if (size >= 1e3) return `${trim(value / 1e3)} kB`;
  return `${trim(value)} B`;
}

function trim(value: number): string {
  return String(Number(value.toFixed(Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2)));
}

const LATENCY_WORDS: Record<string, string> = {
  rttCorrected: "RTT corrected",
  connect: "connect",
  login: "login",
  broadcast: "broadcast",
  jitter: "jitter",
};
const LATENCY_COLOURS = ["#cf222e", "#0969da", "#1a7f37", "#8250df", "#9a6700"];

/** The latencies besides RTT that any second carries (coordinated-omission corrected RTT, connect, login, …). */
export function latencyNames(points: readonly SeriesPoint[]): string[] {
  const names = new Set<string>();
  for (const point of points) for (const name of Object.keys(point.latency ?? {})) names.add(name);
  return [...names].sort((a, b) => Object.keys(LATENCY_WORDS).indexOf(a) - Object.keys(LATENCY_WORDS).indexOf(b));
}

/** p99 of each of those latencies, one line each. */
export function latencyLines(names: readonly string[]): ChartLine[] {
  return names.map((name, index) => ({
    label: `${LATENCY_WORDS[name] ?? name} p99`,
    color: LATENCY_COLOURS[index % LATENCY_COLOURS.length]!,
    value: (p) =>
      (p.latency as Record<string, { p99Ms: number | null } | undefined> | undefined)?.[name]?.p99Ms ?? null,
  }));
}

/** Agents that reported health in any second, in order of first appearance. */
export function healthAgentIds(points: readonly SeriesPoint[]): string[] {
  const ids = new Set<string>();
  for (const point of points) for (const health of point.agentHealth ?? []) ids.add(health.agentId);
  return [...ids];
}

const AGENT_COLOURS = ["#0969da", "#1a7f37", "#9a6700", "#8250df", "#cf222e", "#57606a", "#bf3989", "#0a7b83"];

/** Each agent's CPU (100 = one core) per second; `name` turns an agent id into what the user knows it by. */
export function agentCpuLines(ids: readonly string[], name: (agentId: string) => string): ChartLine[] {
  return ids.map((agentId, index) => ({
    label: `${name(agentId)} CPU %`,
    color: AGENT_COLOURS[index % AGENT_COLOURS.length]!,
    value: (p) => {
      // A loop, not find: this runs for every agent at every second of the run when its columns are built.
      for (const health of p.agentHealth ?? []) if (health.agentId === agentId) return health.cpuPercent;
      return null;
    },
  }));
}

/** Step-up load: a marker where each new step starts. */
export function stepMarkers(points: readonly SeriesPoint[]): TimeMarker[] {
  const markers: TimeMarker[] = [];
  let previous: number | undefined;
  for (const point of points) {
    if (point.step !== undefined && point.step !== previous && previous !== undefined)
      markers.push({ t: point.t, label: `step ${point.step + 1}`, kind: "stage" });
    previous = point.step ?? previous;
  }
  return markers;
}
