import { ROOMS_SHOWN, roomOrder, roomReach, type RoomFigures, type RoomsReport } from "@throng/protocol/rooms";
import { MAX_TRACKED_US } from "./histogram";

// Thousands of rooms per engine: an HDR histogram each (3 digits to a minute, ~100 KiB) would not fit, and a snapshot
// cannot carry one per room. A room gets 16 buckets per power of two instead (values within 6.25 %, 1.7 KiB a room),
// allocated once when the room first counts; recording is a clz32, a shift and an increment.

const SUB_BITS = 4;
const SUB_BUCKETS = 1 << SUB_BITS;

/** The bucket of `micros` (an integer ≥ 1): the exact value below 16, then 16 buckets per power of two. */
export function bucketOf(micros: number): number {
  if (micros < SUB_BUCKETS) return micros;
  const octave = 31 - Math.clz32(micros) - SUB_BITS + 1;
  return octave * SUB_BUCKETS + ((micros >>> (octave - 1)) & (SUB_BUCKETS - 1));
}

/** Buckets up to MAX_TRACKED_US (recorded values are clamped to it). */
const BUCKETS = bucketOf(MAX_TRACKED_US) + 1;

/** The highest value bucket `index` holds. */
export function bucketTop(index: number): number {
  if (index < SUB_BUCKETS) return index;
  const octave = Math.floor(index / SUB_BUCKETS);
  const sub = index % SUB_BUCKETS;
  return ((SUB_BUCKETS + sub + 1) << (octave - 1)) - 1;
}

interface RoomState {
  room: number;
  members: number;
  expected: number;
  received: number;
  maxUs: number;
  counts: Uint32Array;
  /** Received since its percentiles were last read: the report reads only these again. */
  changed: boolean;
  p50Us: number | null;
  p99Us: number | null;
}

function percentileOf(room: RoomState, fraction: number): number | null {
  if (room.received === 0) return null;
  const rank = Math.max(1, Math.ceil(room.received * fraction));
  let seen = 0;
  for (let index = 0; index < BUCKETS; index += 1) {
    seen += room.counts[index] ?? 0;
    if (seen >= rank) return Math.min(bucketTop(index), room.maxUs);
  }
  return room.maxUs;
}

/** What movement-sync tells the tally: per room, the broadcasts it expects and each one received. */
export interface RoomTally {
  /** A sender's update: `others` members should receive it; `members` are joined now (the sender too). */
  expected(room: number, others: number, members: number): void;
  /** One broadcast received by a member of `room`, `micros` after it was sent. */
  received(room: number, micros: number): void;
  /** The shard's rooms since the run started: the worst `shown` and the spread over all (PROTOCOL.md §5.3). */
  report(shown?: number): RoomsReport;
}

export function createRoomTally(): RoomTally {
  const rooms = new Map<number, RoomState>();
  const stateOf = (room: number) => {
    let state = rooms.get(room);
    if (!state) {
      state = {
        room,
        members: 0,
        expected: 0,
        received: 0,
        maxUs: 0,
        counts: new Uint32Array(BUCKETS),
        changed: false,
        p50Us: null,
        p99Us: null,
      };
      rooms.set(room, state);
    }
    return state;
  };
  const figures = (state: RoomState): RoomFigures => ({
    room: state.room,
    members: state.members,
    expected: state.expected,
    received: state.received,
    p50Us: state.p50Us,
    p99Us: state.p99Us,
    maxUs: state.received ? state.maxUs : null,
  });

  return {
    expected(room, others, members) {
      const state = stateOf(room);
      state.expected += others;
      if (members > state.members) state.members = members;
    },
    received(room, micros) {
      const state = stateOf(room);
      const value = Math.min(MAX_TRACKED_US, Math.max(1, Math.round(micros)));
      const bucket = bucketOf(value);
      state.counts[bucket] = (state.counts[bucket] ?? 0) + 1;
      state.received += 1;
      if (value > state.maxUs) state.maxUs = value;
      state.changed = true;
    },
    report(shown = ROOMS_SHOWN) {
      // The worst `shown` kept in order by insertion: rooms are many and shown few, so no sort of them all.
      const worst: RoomFigures[] = [];
      let reachMin: number | null = null;
      let reachMax: number | null = null;
      let p99MinUs: number | null = null;
      let p99MaxUs: number | null = null;
      for (const state of rooms.values()) {
        if (state.changed) {
          state.p50Us = percentileOf(state, 0.5);
          state.p99Us = percentileOf(state, 0.99);
          state.changed = false;
        }
        const reach = roomReach(state);
        if (reach !== null) {
          reachMin = reachMin === null ? reach : Math.min(reachMin, reach);
          reachMax = reachMax === null ? reach : Math.max(reachMax, reach);
        }
        if (state.p99Us !== null) {
          p99MinUs = p99MinUs === null ? state.p99Us : Math.min(p99MinUs, state.p99Us);
          p99MaxUs = p99MaxUs === null ? state.p99Us : Math.max(p99MaxUs, state.p99Us);
        }
        const best = worst[shown - 1];
        if (best && roomOrder(state, best) >= 0) continue;
        const room = figures(state);
        let at = worst.length;
        while (at > 0 && roomOrder(room, worst[at - 1] ?? room) < 0) at -= 1;
        worst.splice(at, 0, room);
        if (worst.length > shown) worst.pop();
      }
      return { rooms: rooms.size, worst, spread: { reachMin, reachMax, p99MinUs, p99MaxUs } };
    },
  };
}
