import type { Queue } from "bullmq";
import {
  Counter,
  Gauge,
  Histogram,
  createMetricsRegistry,
  registerQueueDepth,
  type MetricsAccess,
} from "@throng/runtime/metrics";

/** What the api counts for `GET /metrics`; one per app, built in composeApi. */
export type ApiMetrics = ReturnType<typeof createApiMetrics>;

/**
 * The api's Prometheus metrics. Gauges of things the process already tracks (connected agents, connections waiting
 * for hello) are read when scraped; the rest are counted where they happen.
 */
export function createApiMetrics(input: { queues: readonly Queue[]; access: MetricsAccess }) {
  const registry = createMetricsRegistry();
  registerQueueDepth(registry, input.queues);
  let gateway = { connectedAgents: () => 0, waitingForHello: () => 0 };

  const httpRequest = new Histogram({
    name: "throng_http_request_duration_seconds",
    help: "HTTP requests answered by the api, by route pattern, method and status",
    labelNames: ["route", "method", "status"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const snapshots = new Counter({
    name: "throng_snapshots_ingested_total",
    help: "Agents' per-second metric snapshots ingested, by result (stored, duplicate, unknown-run)",
    labelNames: ["result"],
    registers: [registry],
  });
  // From the end of the snapshot's second (server time) to its arrival: what the agent's flush and the network add.
  const snapshotLag = new Histogram({
    name: "throng_snapshot_lag_seconds",
    help: "Seconds from the end of a snapshot's one-second interval to its arrival at the api",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers: [registry],
  });
  const liveSubscribers = new Gauge({
    name: "throng_live_subscribers",
    help: "Browsers connected to a run's live stream (GET /api/runs/:id/live) on this api",
    registers: [registry],
  });
  new Gauge({
    name: "throng_agents_connected",
    help: "Agents with a session (hello accepted) on this api's gateway",
    registers: [registry],
    collect() {
      this.set(gateway.connectedAgents());
    },
  });
  new Gauge({
    name: "throng_agent_connections_waiting_for_hello",
    help: "Agent gateway connections not yet past hello",
    registers: [registry],
    collect() {
      this.set(gateway.waitingForHello());
    },
  });

  return {
    registry,
    /** Who may scrape (METRICS_TOKEN, or an open loopback-only listener), and the line main.ts logs about it. */
    access: input.access,
    /** The gateway exists only once the app is built: it hands its counts over then. */
    observeGateway(counts: typeof gateway) {
      gateway = counts;
    },
    requestAnswered(route: string, method: string, status: number, seconds: number) {
      httpRequest.observe({ route, method, status: String(status) }, seconds);
    },
    snapshotReceived(snapshot: { intervalStart: number; intervalMs: number }, receivedAt: number) {
      // A small negative lag is the agent's clock-offset error, not a snapshot from the future.
      snapshotLag.observe(Math.max(0, receivedAt - snapshot.intervalStart - snapshot.intervalMs) / 1000);
    },
    snapshotIngested(result: string) {
      snapshots.inc({ result });
    },
    liveSubscriberJoined() {
      liveSubscribers.inc();
    },
    liveSubscriberLeft() {
      liveSubscribers.dec();
    },
  };
}
