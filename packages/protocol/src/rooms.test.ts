import { describe, expect, it } from "vitest";
import { mergeRoomsReports, roomsShownLine, roomsSpreadLine, runRoomsOf, type RoomFigures } from "./rooms";

const room = (n: number, expected: number, received: number, p99Us: number | null): RoomFigures => ({
  room: n,
  members: 4,
  expected,
  received,
  p50Us: p99Us,
  p99Us,
  maxUs: p99Us,
});

describe("rooms across agents", () => {
  it("merges disjoint reports worst first (reach, then p99), cut to the rooms shown, the spread's ends kept", () => {
    const a = {
      rooms: 3,
      worst: [room(0, 100, 90, 5_000), room(1, 100, 100, 9_000)],
      spread: { reachMin: 0.9, reachMax: 1, p99MinUs: 2_000, p99MaxUs: 9_000 },
    };
    const b = {
      rooms: 2,
      worst: [room(7, 100, 90, 12_000), room(8, 0, 0, null)],
      spread: { reachMin: 0.9, reachMax: 0.9, p99MinUs: 12_000, p99MaxUs: 12_000 },
    };
    const merged = mergeRoomsReports([a, b], 3);
    expect(merged.rooms).toBe(5);
    expect(merged.worst.map((r) => r.room)).toEqual([7, 0, 1]);
    expect(merged.spread).toEqual({ reachMin: 0.9, reachMax: 1, p99MinUs: 2_000, p99MaxUs: 12_000 });
  });

  it("says the spread in one line and what the table leaves out", () => {
    const view = runRoomsOf([
      {
        rooms: 200,
        worst: [room(3, 1_000, 971, 48_000)],
        spread: { reachMin: 0.971, reachMax: 1, p99MinUs: 12_000, p99MaxUs: 48_000 },
      },
    ]);
    expect(roomsSpreadLine(view)).toBe("reach 97.1–100 %, p99 12–48 ms across 200 rooms");
    expect(roomsShownLine(view)).toBe("worst 1 of 200 rooms shown");
    expect(view.worst[0]).toMatchObject({ room: 3, reach: 0.971, p99Ms: 48 });
    const one = runRoomsOf([
      {
        rooms: 1,
        worst: [room(0, 10, 10, 1_500)],
        spread: { reachMin: 1, reachMax: 1, p99MinUs: 1_500, p99MaxUs: 1_500 },
      },
    ]);
    expect(roomsSpreadLine(one)).toBe("reach 100 %, p99 1.5 ms across 1 room");
    expect(roomsShownLine(one)).toBeUndefined();
  });
});
