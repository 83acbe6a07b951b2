"use client";

import { roomsShownLine, roomsSpreadLine, type RunRooms } from "@throng/protocol/rooms";
import { formatInteger, formatMs, formatPercent } from "../../lib/shared/format";
import { DataTable } from "../ui/data-table";

const COLUMNS = [
  { label: "Room", numeric: true },
  { label: "Members", numeric: true, title: "The most players joined at once" },
  { label: "Reach", numeric: true, title: "Broadcasts received ÷ expected (updates sent × other players joined)" },
  { label: "Broadcasts", numeric: true, title: "Received of expected" },
  { label: "p50", numeric: true },
  { label: "p99", numeric: true },
  { label: "max", numeric: true },
] as const;

/**
 * movement-sync: each room's reach and broadcast latency, worst first (lowest reach, then highest p99), and the
 * spread; while the run is `live`, its rooms so far (the agents' newest reports).
 */
export function RoomsTable({ rooms, live = false }: { rooms: RunRooms; live?: boolean }) {
  if (rooms.rooms === 0) return null;
  const shown = roomsShownLine(rooms);
  return (
    <section className="panel" aria-labelledby="rooms-title" data-testid="rooms" data-live={live}>
      <h2 id="rooms-title">Rooms</h2>
      <p data-testid="rooms-spread">{roomsSpreadLine(rooms)}</p>
      <p className="muted small">
        Worst first: lowest reach, then highest broadcast p99,{" "}
        {live ? "so far (read again every few seconds while the run goes)" : "over the whole run"}. Latencies are within
        6 % (each agent keeps a compact histogram per room){shown ? `; ${shown}` : ""}.
      </p>
      <DataTable caption="Rooms, worst first" columns={COLUMNS} testId="rooms-table">
        {rooms.worst.map((room) => (
          <tr key={room.room} data-testid={`room-${room.room}`}>
            <td className="num">{room.room}</td>
            <td className="num">{formatInteger(room.members)}</td>
            <td className="num">{room.reach === null ? "–" : formatPercent(room.reach)}</td>
            <td className="num">
              {formatInteger(room.received)} of {formatInteger(room.expected)}
            </td>
            <td className="num">{formatMs(room.p50Ms)}</td>
            <td className="num">{formatMs(room.p99Ms)}</td>
            <td className="num">{formatMs(room.maxMs)}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
