import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server as HttpServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Server } from "socket.io";
import { afterEach, describe, expect, it } from "vitest";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { runShard } from "../engine/run-shard";
import { decodeHistogram } from "../metrics/histogram";
import { assignmentFor, merged, total } from "../testing/assignment";

let http: HttpServer | undefined;
let io: Server | undefined;
let dir: string | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (io ? io.close(() => resolve()) : resolve()));
  if (dir) await rm(dir, { recursive: true, force: true });
  io = undefined;
  http = undefined;
  dir = undefined;
});

/** A Socket.IO v4 room server: "join" puts the socket in its room (acknowledged with the room's size, "full" once all are in), "move" goes to the rest of the room. */
async function startRoomServer(): Promise<number> {
  http = createServer();
  io = new Server(http);
  io.on("connection", (socket) => {
    socket.on("join", ({ room, size }: { room: number; size: number }, ack: (members: number) => void) => {
      void socket.join(String(room));
      const members = io!.sockets.adapter.rooms.get(String(room))?.size ?? 0;
      ack(members);
      if (members >= size) io!.to(String(room)).emit("full");
    });
    socket.on("move", (move: { room: number }) => socket.to(String(move.room)).emit("moved", move));
  });
  await new Promise<void>((resolve) => http!.listen(0, "127.0.0.1", resolve));
  return (http.address() as { port: number }).port;
}

/** Bundles the fixture with its socket.io-client into one .mjs, as `throng script bundle` will. */
async function bundle(entry: string): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), "throng-script-"));
  const outfile = join(dir, "bundle.mjs");
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    logLevel: "warning",
    // The client's CommonJS parts (ws, xmlhttprequest-ssl) call require(): give the ESM bundle one.
    banner: {
      js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
    },
  });
  return outfile;
}

describe("a scripted plan against a real Socket.IO v4 server (socket.io 4.8.4 from npm)", () => {
  it("2 rooms of 4 for 4 s: connect times, broadcast latency on the script's own clock, reach above 95%, no errors", async () => {
    const port = await startRoomServer();
    const path = await bundle(fileURLToPath(new URL("../../examples/socketio-bots.mjs", import.meta.url)));
    const snapshots: MetricSnapshot[] = [];
    const assignment = assignmentFor({
      target: { protocol: "websocket", url: `ws://127.0.0.1:${port}/socket.io/` },
      scenario: {
        kind: "script",
        script: { path },
        roomSize: 4,
        parameters: { url: `http://127.0.0.1:${port}`, roomSize: 4 },
        metrics: [
          { name: "connect-ms", kind: "histogram" },
          { name: "updates", kind: "counter" },
        ],
      },
      // 4 s: the bots' joins (HTTP, then the socket) took over a second at load 17 on 2 cores, leaving 2 s short.
      load: { clients: 8, durationSec: 4, rampUpSec: 0 },
    });
    // The script's own sockets are held to the agent's allow-list: the server's port is on it.
    await runShard(assignment, {
      onSnapshot: (s) => snapshots.push(s),
      scripts: { permission: { any: true }, allowTargets: [`127.0.0.1:${port}`] },
    });

    const updates = snapshots.reduce((sum, s) => sum + (s.counters.scriptCounts?.updates ?? 0), 0);
    const received = total(snapshots, "broadcastsReceived");
    // Correctness, not speed: at least one update a bot (about 9 a second each on an idle host), and the room got them.
    expect(updates).toBeGreaterThanOrEqual(8);
    expect(received / (updates * 3)).toBeGreaterThan(0.95);
    expect(merged(snapshots, "broadcastUs")!.totalCount).toBe(received);
    const connect = snapshots
      .map((s) => s.histograms.script?.["connect-ms"])
      .filter((h): h is string => h !== undefined)
      .map(decodeHistogram);
    expect(connect.reduce((sum, h) => sum + h.totalCount, 0)).toBe(8);
    expect(total(snapshots, "errors")).toBe(0);
    expect(total(snapshots, "duplicates") + total(snapshots, "outOfOrder")).toBe(0);
  });
});
