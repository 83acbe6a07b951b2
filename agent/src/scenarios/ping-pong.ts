import type { PingPongScenario } from "@throng/protocol/plan";
import type { ScenarioMetrics } from "../metrics/snapshot-builder";
import type { Transport, TransportConnection } from "../transports/transport";
import type { ScenarioRunner } from "./scenario";

/** A ping unanswered this long is counted as an error so the client can send again. */
const DEFAULT_PONG_TIMEOUT_MS = 30_000;
const PAD = "x".repeat(65_536);

/**
 * The ping frame: `{"type":"ping","seq":N,"client":C,"pad":"xx…"}`, exactly `messageBytes` long.
 * When `messageBytes` is smaller than the frame without padding, the frame is sent unpadded.
 */
export function pingFrame(seq: number, client: number, messageBytes: number): string {
  const head = `{"type":"ping","seq":${seq},"client":${client},"pad":"`;
  const tail = `"}`;
  // Every character is ASCII, so string length equals byte length.
  const padLength = Math.max(0, messageBytes - head.length - tail.length);
  return head + PAD.slice(0, padLength) + tail;
}

/** The pong's seq, or undefined when the frame is not a pong. Throws on a frame that is not JSON. */
export function pongSeq(data: Buffer): number | undefined {
  const message = JSON.parse(data.toString("utf8")) as { type?: unknown; seq?: unknown } | null;
  if (message === null || typeof message !== "object" || message.type !== "pong") return undefined;
  return typeof message.seq === "number" ? message.seq : undefined;
}

export interface PingPongOptions {
  url: string;
  scenario: PingPongScenario;
  transport: Transport;
  metrics: ScenarioMetrics;
  random?: () => number;
  pongTimeoutMs?: number;
}

interface Client {
  stop(): Promise<void>;
}

/** Each client opens its own connection and keeps one ping in flight every `intervalMs`. */
export function createPingPong(options: PingPongOptions): ScenarioRunner {
  const clients = new Set<Client>();
  let closing = false;
  return {
    startClient(index) {
      if (closing) return;
      clients.add(startPingPongClient(index, options));
    },
    async close() {
      closing = true;
      await Promise.all([...clients].map((client) => client.stop()));
      clients.clear();
    },
  };
}

function startPingPongClient(index: number, options: PingPongOptions): Client {
  const { scenario, metrics } = options;
  const random = options.random ?? Math.random;
  const pongTimeoutMs = options.pongTimeoutMs ?? DEFAULT_PONG_TIMEOUT_MS;
  let nextSeq = 0;
  let inFlight: { seq: number; sentAt: number } | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const tick = () => {
    const now = performance.now();
    if (inFlight && now - inFlight.sentAt < pongTimeoutMs) return; // one ping in flight at a time
    if (inFlight) metrics.error();
    const frame = pingFrame(nextSeq, index, scenario.messageBytes);
    const sentAt = performance.now();
    if (!connection.send(frame)) return;
    inFlight = { seq: nextSeq, sentAt };
    nextSeq += 1;
    metrics.messageSent(frame.length);
  };

  const connection: TransportConnection = options.transport.open(options.url, {
    onOpen() {
      metrics.connectionOpened();
      if (stopped) return;
      // A random first offset keeps clients from sending in lockstep.
      timer = setTimeout(() => {
        timer = setInterval(tick, scenario.intervalMs);
        tick();
      }, random() * scenario.intervalMs);
    },
    onMessage(data) {
      const receivedAt = performance.now();
      metrics.messageReceived(data.length);
      let seq: number | undefined;
      try {
        seq = pongSeq(data);
      } catch {
        metrics.error();
        return;
      }
      if (inFlight === undefined || seq !== inFlight.seq) return;
      metrics.roundTripMicros((receivedAt - inFlight.sentAt) * 1000);
      inFlight = undefined;
    },
    onEnd(end) {
      clearTimeout(timer);
      clearInterval(timer);
      if (!end.opened) return metrics.connectionFailed();
      metrics.connectionClosed();
      // A close we asked for is not an error; a reset or a server-side drop mid-run is.
      if (end.error && !stopped) metrics.error();
    },
  });

  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      clearInterval(timer);
      return connection.close();
    },
  };
}
