// What a run's charts mark besides its events (issue 28 §1): the timed lines of its note ("0:42 failover started")
// and the seconds its agents were saturated (the agent, not the server, was the limit). Each is a TimeMarker every
// chart draws as a line, with its words on hover and focus and in the chart's list of annotations.
import type { SeriesPoint } from "@throng/protocol/snapshot";
import type { TimeMarker } from "./series";

/** How much of a note's line the plot writes beside its marker; the whole line is under the chart. */
const NOTE_LABEL_CHARS = 24;

const CLOCK = /^\+?(?:(\d+):)?(\d+):([0-5]\d)(?!\d)/; // 1:05, 0:01:05, +1:05
const UNITS = /^\+?(?:(\d+)\s*h\s*)?(?:(\d+)\s*m(?:in)?\s*)?(?:(\d+)\s*s)?(?![a-z\d])/i; // 12 s, 1 m 05 s, 2 min, 1h
const SEPARATOR = /^[\s:–—-]+/;

/** The seconds since the run's start a note's line begins with, and the words after them; null for a line without. */
export function timedLine(line: string): { offset: number; words: string } | null {
  const text = line.trim();
  const clock = CLOCK.exec(text);
  if (clock) {
    const [h, m, s] =
      clock[1] === undefined
        ? [0, Number(clock[2]), Number(clock[3])]
        : [Number(clock[1]), Number(clock[2]), Number(clock[3])];
    return { offset: h * 3600 + m * 60 + s, words: text.slice(clock[0].length).replace(SEPARATOR, "") };
  }
  const units = UNITS.exec(text);
  if (units && units[0].replace("+", "").trim() !== "") {
    const [h, m, s] = [units[1], units[2], units[3]].map((part) => Number(part ?? 0)) as [number, number, number];
    return { offset: h * 3600 + m * 60 + s, words: text.slice(units[0].length).replace(SEPARATOR, "") };
  }
  return null;
}

/** A marker for each line of the run's note that begins with a time since its start (`start`: its first second). */
export function noteMarkers(note: string, start: number | null): TimeMarker[] {
  if (start === null || !note) return [];
  return note.split("\n").flatMap((line) => {
    const timed = timedLine(line);
    if (!timed) return [];
    const words = timed.words || "note";
    const label = words.length > NOTE_LABEL_CHARS ? `${words.slice(0, NOTE_LABEL_CHARS - 1).trimEnd()}…` : words;
    return [{ t: start + timed.offset, label, kind: "note" as const, detail: `Note: ${line.trim()}` }];
  });
}

/**
 * A marker where each stretch of seconds with a saturated agent begins, naming the agents and why: the figures from
 * there on say more about the load generator than about the server.
 */
export function saturationMarkers(points: readonly SeriesPoint[], name: (agentId: string) => string): TimeMarker[] {
  const markers: TimeMarker[] = [];
  let previous = new Set<string>();
  for (const point of points) {
    const saturated = (point.agentHealth ?? []).filter((health) => health.saturated);
    const now = new Set(saturated.map((health) => health.agentId));
    const newly = saturated.filter((health) => !previous.has(health.agentId));
    if (newly.length > 0) {
      const who = newly
        .map((health) => `${name(health.agentId)} (${health.saturatedReason ?? "saturated"})`)
        .join(", ");
      markers.push({
        t: point.t,
        label: "agent saturated",
        kind: "saturated",
        detail: `Agent saturated, the load generator was the limit: ${who}`,
      });
    }
    previous = now;
  }
  return markers;
}

/** Each marker kind's colour, on the plot and in the chart's list of annotations. */
export const MARKER_COLOURS: Record<TimeMarker["kind"], string> = {
  stage: "#57606a",
  "agent-lost": "#cf222e",
  "agent-returned": "#1a7f37",
  aborted: "#9a6700",
  "search-ended": "#0969da",
  "seconds-lost": "#cf222e",
  note: "#8250df",
  saturated: "#bc4c00",
};

/** How near (CSS px) the cursor must be to a marker's line for its words to show. */
const HOVER_PX = 6;

/** The marker whose line is nearest `x` (CSS px from the plot's left, the cursor's), if within reach; else null. */
export function nearestMarker(x: number | null | undefined, positions: readonly number[]): number | null {
  if (x == null || !Number.isFinite(x) || x < 0) return null;
  let best: number | null = null;
  positions.forEach((position, index) => {
    const distance = Math.abs(position - x);
    if (distance <= HOVER_PX && (best === null || distance < Math.abs(positions[best]! - x))) best = index;
  });
  return best;
}

/** Every marker of a run's charts, in time order: its events, capacity steps, the note's timed lines, saturation. */
export function runMarkers(parts: {
  events: TimeMarker[];
  steps: TimeMarker[];
  note: string;
  start: number | null;
  points: readonly SeriesPoint[];
  name: (agentId: string) => string;
}): TimeMarker[] {
  return [
    ...parts.events,
    ...parts.steps,
    ...noteMarkers(parts.note, parts.start),
    ...saturationMarkers(parts.points, parts.name),
  ].sort((a, b) => a.t - b.t);
}
