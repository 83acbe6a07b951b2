import { createSocket, type Socket } from "node:dgram";
import { afterEach, describe, expect, it } from "vitest";
import { runPlan, total } from "../testing/assignment";

let server: Socket | undefined;
/** Late pongs still due: a run that ends first must not have them sent on a closed socket after the test. */
const late = new Set<NodeJS.Timeout>();
afterEach(() => {
  late.forEach(clearTimeout);
  late.clear();
  server?.close();
});

/** A UDP server that misbehaves by seq: drops every 5th+1 pong, doubles every 5th+2, answers every 5th+3 too late. */
async function lossyServer(): Promise<number> {
  server = createSocket("udp4");
  const socket = server;
  socket.on("message", (message, remote) => {
    const seq = (JSON.parse(message.toString()) as { seq: number }).seq;
    const pong = `{"type":"pong","seq":${seq}}`;
    const reply = () => socket.send(pong, remote.port, remote.address);
    if (seq % 5 === 1) return;
    if (seq % 5 === 2) reply();
    if (seq % 5 === 3) {
      const timer = setTimeout(() => late.delete(timer) && reply(), 150);
      return void late.add(timer);
    }
    reply();
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return socket.address().port;
}

describe("UDP ping-pong finds loss, duplicates and reordering by sequence number", () => {
  it("counts each kind from a server that drops, doubles and delays pongs", async () => {
    const port = await lossyServer();
    const snapshots = await runPlan({
      target: { protocol: "udp", host: "127.0.0.1", port },
      scenario: { kind: "ping-pong", intervalMs: 20, messageBytes: 64, timeoutMs: 100 },
      load: { clients: 1, durationSec: 2, rampUpSec: 0 },
    });
    expect(total(snapshots, "lost")).toBeGreaterThan(3);
    expect(total(snapshots, "duplicates")).toBeGreaterThan(3);
    expect(total(snapshots, "outOfOrder")).toBeGreaterThan(0);
    expect(total(snapshots, "errors")).toBe(0);
  });
});
