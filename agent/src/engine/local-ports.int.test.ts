import { execFileSync } from "node:child_process";
import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { RunAssignment } from "@throng/protocol/agent";
import type { TcpFraming } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { useReferenceTarget } from "../testing/reference-target.test-support";
import { kernelPortRange, LocalPorts, portSlice } from "../transports/local-ports";
import { tcpTransport } from "../transports/tcp";
import { causeOf, type Transport, type TransportConnection, type TransportEnd } from "../transports/transport";
import { webSocketTransport } from "../transports/websocket";
import { runShard } from "./run-shard";

const startTestTarget = useReferenceTarget();
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Local address:port of every established connection to `port`, as the kernel lists them. */
function localEndsTo(port: number): { address: string; port: number }[] {
  const out = execFileSync("ss", ["-Htn", "state", "established", `( dport = :${port} )`], { encoding: "utf8" });
  return out
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const local = line.trim().split(/\s+/)[2]!;
      const colon = local.lastIndexOf(":");
      return { address: local.slice(0, colon), port: Number(local.slice(colon + 1)) };
    });
}

/** A listener holding 127.0.0.2:port, so binding that port fails with EADDRINUSE. */
async function holdPort(): Promise<number> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.2", resolve));
  return (server.address() as { port: number }).port;
}

function open(
  transport: Transport,
  options: Parameters<Transport["open"]>[1],
): Promise<{ connection: TransportConnection; end: Promise<TransportEnd> }> {
  return new Promise((resolve, reject) => {
    let resolveEnd!: (end: TransportEnd) => void;
    const end = new Promise<TransportEnd>((r) => (resolveEnd = r));
    const connection = transport.open(
      {
        onOpen: () => resolve({ connection, end }),
        onMessage() {},
        onEnd(ended) {
          resolveEnd(ended);
          if (!ended.opened) reject(ended.error ?? new Error("ended before it opened"));
        },
      },
      options,
    );
  });
}

describe("the engine binds its own local ports", () => {
  it("connects 40 clients from 127.0.0.2 and 127.0.0.3, each on a port of its engine's slice", async () => {
    const target = await startTestTarget({ port: 0 });
    const clients = 40;
    const assignment: RunAssignment = {
      runId: "3c5d7e9f-1a2b-4c3d-8e4f-5a6b7c8d9e0f",
      shardIndex: 0,
      shardCount: 1,
      clients,
      startAt: Date.now(),
      plan: {
        name: "local ports",
        target: { protocol: "websocket", url: target.url },
        scenario: { kind: "ping-pong", intervalMs: 200, messageBytes: 64 },
        load: { clients, durationSec: 2, rampUpSec: 0 },
      },
    };
    const snapshots: MetricSnapshot[] = [];
    let seen: { address: string; port: number }[] = [];
    await runShard(assignment, {
      sourceAddresses: ["127.0.0.2", "127.0.0.3"],
      portSlice: { index: 1, count: 2 },
      onSnapshot(snapshot) {
        snapshots.push(snapshot);
        if (snapshot.seq === 0) seen = localEndsTo(target.port);
      },
    });

    const slice = portSlice(kernelPortRange(), 1, 2);
    expect(snapshots[0]!.counters.connectionsOpened).toBe(clients);
    expect(seen).toHaveLength(clients);
    expect(seen.filter((end) => end.address === "127.0.0.2")).toHaveLength(clients / 2);
    expect(seen.filter((end) => end.address === "127.0.0.3")).toHaveLength(clients / 2);
    for (const end of seen) {
      expect(end.port).toBeGreaterThanOrEqual(slice.first);
      expect(end.port).toBeLessThanOrEqual(slice.last);
    }
    expect(snapshots.reduce((sum, s) => sum + s.counters.connectionsFailed + s.counters.errors, 0)).toBe(0);
  });

  it.each(["lean", "ws"] as const)(
    "skips a port a listener holds (EADDRINUSE) and binds the next one, over the %s WebSocket client",
    async (client) => {
      const target = await startTestTarget({ port: 0 });
      const held = await holdPort();
      const ports = new LocalPorts({ first: held, last: held + 20 }, new Set(), () => 0);
      const { connection } = await open(webSocketTransport({ protocol: "websocket", url: target.url, client }), {
        localAddress: "127.0.0.2",
        localPorts: ports,
      });

      const [end] = localEndsTo(target.port);
      expect(end!.address).toBe("127.0.0.2");
      expect(end!.port).toBeGreaterThan(held);
      expect(end!.port).toBeLessThanOrEqual(held + 20);
      expect(ports.inUse("127.0.0.2")).toBe(1);
      await connection.close();
      expect(ports.inUse("127.0.0.2")).toBe(0);
    },
  );

  it("skips a port whose 4-tuple another connection holds (EADDRNOTAVAIL on connect), over TCP", async () => {
    const framing: TcpFraming = { kind: "delimiter" };
    const target = await startTestTarget({ port: 0, tcp: { port: 0, framing } });
    const transport = tcpTransport({ protocol: "tcp", host: "127.0.0.1", port: target.tcpPort!, framing });
    const first = await holdPort();
    servers.pop()!.close();
    // Two allocators over the same ports stand for another process that binds them too.
    const range = { first, last: first + 20 };
    const other = await open(transport, {
      localAddress: "127.0.0.2",
      localPorts: new LocalPorts(range, new Set(), () => 0),
    });
    const ours = await open(transport, {
      localAddress: "127.0.0.2",
      localPorts: new LocalPorts(range, new Set(), () => 0),
    });

    const ports = localEndsTo(target.tcpPort!)
      .map((end) => end.port)
      .sort((a, b) => a - b);
    expect(ports).toHaveLength(2);
    expect(new Set(ports).size).toBe(2);
    expect(ports[0]).toBe(first);
    await Promise.all([other.connection.close(), ours.connection.close()]);
  });

  it("fails a connection with cause no-local-port when every port it may use is taken, without throwing", async () => {
    const target = await startTestTarget({ port: 0 });
    const held = await holdPort();
    const ports = new LocalPorts({ first: held, last: held }, new Set(), () => 0);
    const end = await new Promise<TransportEnd>((resolve) =>
      webSocketTransport({ protocol: "websocket", url: target.url }).open(
        { onOpen() {}, onMessage() {}, onEnd: resolve },
        { localAddress: "127.0.0.2", localPorts: ports },
      ),
    );
    expect(end.opened).toBe(false);
    expect(causeOf(end.error!)).toBe("no-local-port");
    expect(ports.inUse("127.0.0.2")).toBe(0);
  });
});
