import { z } from "zod";

// movement-sync per room (issue 28 §1, agent/PROTOCOL.md §5.3): each engine tallies every room of its shard for the
// whole run (a room lives on one engine of one agent), and each snapshot carries the shard's worst ROOMS_SHOWN rooms so
// far plus the spread over all of them. Cumulative, so the last snapshot an agent sent stands for its rooms when it is
// lost; the control plane keeps each agent's latest and merges agents (their rooms are disjoint) by the same rule.

/** Rooms one snapshot, one agent and one run show at most: the worst first. */
export const ROOMS_SHOWN = 50;

/** One room's figures since the run started (latencies in microseconds, null before its first broadcast). */
export const RoomFigures = z.object({
  /** The room's number in the run ({{room}}). */
  room: z.number().int().min(0),
  /** The most players joined at once. */
  members: z.number().int().min(0),
  /** Broadcasts the room should have delivered (updates sent × other players joined). */
  expected: z.number().int().min(0),
  received: z.number().int().min(0),
  /** Upper edges of the agent's per-room latency buckets (1/16 of a power of two: within 6.25 %); max is exact. */
  p50Us: z.number().int().min(0).nullable(),
  p99Us: z.number().int().min(0).nullable(),
  maxUs: z.number().int().min(0).nullable(),
});
export type RoomFigures = z.infer<typeof RoomFigures>;

/** Across every room measured (not only those shown): the lowest and highest reach and p99. */
export const RoomSpread = z.object({
  reachMin: z.number().min(0).nullable(),
  reachMax: z.number().min(0).nullable(),
  p99MinUs: z.number().int().min(0).nullable(),
  p99MaxUs: z.number().int().min(0).nullable(),
});
export type RoomSpread = z.infer<typeof RoomSpread>;

/** agent → server, in each movement-sync snapshot (MetricSnapshot.rooms): the shard's rooms so far, cumulative. */
export const RoomsReport = z.object({
  /** Rooms that expected or received a broadcast so far. */
  rooms: z.number().int().min(0),
  /** The worst rooms, worst first (roomOrder), at most ROOMS_SHOWN. */
  worst: z.array(RoomFigures).max(ROOMS_SHOWN),
  spread: RoomSpread,
});
export type RoomsReport = z.infer<typeof RoomsReport>;

/** A room's reach: received ÷ expected, null when it expected none. */
export const roomReach = (room: Pick<RoomFigures, "expected" | "received">): number | null =>
  room.expected > 0 ? room.received / room.expected : null;

/** Worst first: lowest reach, then highest p99, then the room number; rooms that expected nothing go last. */
export function roomOrder(a: RoomFigures, b: RoomFigures): number {
  const reachA = roomReach(a) ?? Number.POSITIVE_INFINITY;
  const reachB = roomReach(b) ?? Number.POSITIVE_INFINITY;
  if (reachA !== reachB) return reachA - reachB;
  const p99 = (b.p99Us ?? -1) - (a.p99Us ?? -1);
  return p99 !== 0 ? p99 : a.room - b.room;
}

const lowest = (values: (number | null)[]) => {
  const known = values.filter((value): value is number => value !== null);
  return known.length ? Math.min(...known) : null;
};
const highest = (values: (number | null)[]) => {
  const known = values.filter((value): value is number => value !== null);
  return known.length ? Math.max(...known) : null;
};

/**
 * Reports over disjoint rooms (engines of one agent, agents of one run) as one: counts summed, the worst re-ordered
 * and cut to `shown`, the spread's ends the ends of theirs.
 */
export function mergeRoomsReports(reports: readonly RoomsReport[], shown = ROOMS_SHOWN): RoomsReport {
  return {
    rooms: reports.reduce((sum, report) => sum + report.rooms, 0),
    worst: reports
      .flatMap((report) => report.worst)
      .sort(roomOrder)
      .slice(0, shown),
    spread: {
      reachMin: lowest(reports.map((report) => report.spread.reachMin)),
      reachMax: highest(reports.map((report) => report.spread.reachMax)),
      p99MinUs: lowest(reports.map((report) => report.spread.p99MinUs)),
      p99MaxUs: highest(reports.map((report) => report.spread.p99MaxUs)),
    },
  };
}

/** A room as the API, the report and its exports show it: reach as a fraction, latencies in milliseconds. */
export const RoomView = z.object({
  room: z.number().int().min(0),
  members: z.number().int().min(0),
  expected: z.number().int().min(0),
  received: z.number().int().min(0),
  reach: z.number().min(0).nullable(),
  p50Ms: z.number().nullable(),
  p99Ms: z.number().nullable(),
  maxMs: z.number().nullable(),
});
export type RoomView = z.infer<typeof RoomView>;

/** GET /api/runs/:id/rooms and the report's `rooms`: a movement-sync run's worst rooms across its agents. */
export const RunRooms = z.object({
  /** Rooms measured across the run's agents; `worst` shows at most ROOMS_SHOWN of them. */
  rooms: z.number().int().min(0),
  /** Agents whose last snapshot carried rooms: each stands for its rooms as of that snapshot. */
  agents: z.number().int().min(0),
  worst: z.array(RoomView),
  spread: z.object({
    reachMin: z.number().nullable(),
    reachMax: z.number().nullable(),
    p99MinMs: z.number().nullable(),
    p99MaxMs: z.number().nullable(),
  }),
});
export type RunRooms = z.infer<typeof RunRooms>;

/** A run no room was measured in (not movement-sync, or before its first snapshot). */
export const NO_ROOMS: RunRooms = {
  rooms: 0,
  agents: 0,
  worst: [],
  spread: { reachMin: null, reachMax: null, p99MinMs: null, p99MaxMs: null },
};

const ms = (us: number | null) => (us === null ? null : us / 1000);

/** The agents' latest reports as the run's view. */
export function runRoomsOf(reports: readonly RoomsReport[]): RunRooms {
  const merged = mergeRoomsReports(reports);
  return {
    rooms: merged.rooms,
    agents: reports.length,
    worst: merged.worst.map((room) => ({
      room: room.room,
      members: room.members,
      expected: room.expected,
      received: room.received,
      reach: roomReach(room),
      p50Ms: ms(room.p50Us),
      p99Ms: ms(room.p99Us),
      maxMs: ms(room.maxUs),
    })),
    spread: {
      reachMin: merged.spread.reachMin,
      reachMax: merged.spread.reachMax,
      p99MinMs: ms(merged.spread.p99MinUs),
      p99MaxMs: ms(merged.spread.p99MaxUs),
    },
  };
}

/** A reach as a percentage with one decimal, "100" when whole: 0.971 → "97.1". */
export function reachPercent(reach: number): string {
  const percent = Math.floor(reach * 1000) / 10;
  return Number.isInteger(percent) ? String(percent) : percent.toFixed(1);
}

const milliseconds = (value: number) => (value >= 10 ? String(Math.round(value)) : String(Math.round(value * 10) / 10));
const range = (low: string, high: string) => (low === high ? low : `${low}–${high}`);

/** The spread in one line: "reach 97.1–100 %, p99 12–48 ms across 200 rooms"; undefined without rooms. */
export function roomsSpreadLine(rooms: RunRooms): string | undefined {
  if (rooms.rooms === 0) return undefined;
  const { reachMin, reachMax, p99MinMs, p99MaxMs } = rooms.spread;
  const parts = [];
  if (reachMin !== null && reachMax !== null)
    parts.push(`reach ${range(reachPercent(reachMin), reachPercent(reachMax))} %`);
  if (p99MinMs !== null && p99MaxMs !== null)
    parts.push(`p99 ${range(milliseconds(p99MinMs), milliseconds(p99MaxMs))} ms`);
  const count = `${rooms.rooms.toLocaleString("en-US")} room${rooms.rooms === 1 ? "" : "s"}`;
  return parts.length ? `${parts.join(", ")} across ${count}` : `${count}, no broadcast measured`;
}

/** What the table leaves out: "worst 50 of 1,000 rooms shown"; undefined when it shows every room. */
export function roomsShownLine(rooms: RunRooms): string | undefined {
  return rooms.worst.length < rooms.rooms
    ? `worst ${rooms.worst.length} of ${rooms.rooms.toLocaleString("en-US")} rooms shown`
    : undefined;
}
