import { encodeValues } from "@throng/core/metrics/histogram";
import { AGENT_PROTOCOL_VERSION } from "@throng/protocol/agent";
import type { MetricSnapshot } from "@throng/protocol/snapshot";

export type SnapshotBody = Omit<MetricSnapshot, "runId" | "seq" | "intervalStart" | "intervalMs">;

/**
 * Real-sized snapshot bodies: what an agent with `clients` ping-pong clients at 5 pings/s measures in a second
 * (round-trip, corrected and connect histograms with that many values). A small pool, built once, so the
 * bench spends its CPU on sending, not on encoding.
 */
export function snapshotBodies(poolSize = 16) {
  const pool = new Map<number, SnapshotBody[]>();
  const frames = new Map<SnapshotBody, string>(); // each body's JSON, made once: the fleet shares the api's cores
  let turn = 0;
  const build = (clients: number): SnapshotBody => {
    const pings = clients * 5;
    const rtt = Array.from({ length: pings }, () => Math.round(200 + Math.random() ** 3 * 20_000));
    return {
      clients,
      counters: {
        connectionsOpen: clients,
        connectionsOpened: 0,
        connectionsFailed: 0,
        connectionsClosed: 0,
        messagesSent: pings,
        messagesReceived: pings,
        bytesSent: pings * 64,
        bytesReceived: pings * 48,
        errors: 0,
        lateSends: 0,
        skippedSends: 0,
      },
      histograms: {
        rttUs: encodeValues(rtt),
        rttCorrectedUs: encodeValues(rtt.map((v) => v + 50)),
        connectUs: encodeValues(rtt.slice(0, 3)),
      },
      health: {
        cpuPercent: 12.5,
        eventLoopP99Ms: 1.2,
        rssBytes: 80 * 2 ** 20,
        openFds: clients + 20,
        fdLimit: 1_048_576,
        engines: 1,
        saturated: false,
      },
    };
  };
  return {
    /** A whole `snapshot` frame as the agent sends it (encodeMessage's envelope), from a pooled body's JSON. */
    frame(clients: number, head: Pick<MetricSnapshot, "runId" | "seq" | "intervalStart" | "intervalMs">): string {
      const body = this.next(clients);
      let json = frames.get(body);
      if (json === undefined) {
        json = JSON.stringify(body).slice(1, -1);
        frames.set(body, json);
      }
      return `{"v":${AGENT_PROTOCOL_VERSION},"type":"snapshot","payload":{${JSON.stringify(head).slice(1, -1)},${json}}}`;
    },
    next(clients: number): SnapshotBody {
      let bodies = pool.get(clients);
      if (!bodies) {
        bodies = Array.from({ length: poolSize }, () => build(clients));
        pool.set(clients, bodies);
      }
      turn = (turn + 1) % bodies.length;
      return bodies[turn]!;
    },
  };
}
export type SnapshotBodies = ReturnType<typeof snapshotBodies>;
