import type { WireFormat } from "./wire-format";
import type { ScenarioMetrics } from "../metrics/snapshot-builder";
import type { LocalPorts } from "../transports/local-ports";
import { causeOf, type Transport, type TransportConnection, type TransportEnd } from "../transports/transport";
import { SessionRun, type CompiledSession, type SessionDone, type SessionFailure } from "./session";

/** What the engine drives: it starts clients on its load schedule and closes them all at the end. */
export interface ScenarioRunner {
  /** Starts client `index` (0-based within the shard). Never throws; failures are counted. */
  startClient(index: number): void;
  /** Stops one client (a load shape ramping down). */
  stopClient?(index: number): void;
  /**
   * The run's end: stops every client at once (each counts what it still has in flight as `inFlightAtEnd` before
   * this returns) and closes its connection; resolves once all have ended.
   */
  close(): Promise<void>;
}

/** Everything a scenario needs from the engine. */
export interface ScenarioContext {
  transport: Transport;
  metrics: ScenarioMetrics;
  /** Local addresses to spread connections over (client i uses address i mod n). */
  sourceAddresses?: string[];
  /** With sourceAddresses: the engine binds its own local ports (transports/local-ports.ts). */
  localPorts?: LocalPorts;
  random?: () => number;
  /** Shard index, so ids (rooms) from different agents never collide. */
  shardIndex?: number;
  /** The most clients this engine runs at once (ping-pong spaces its first pings by it). */
  clients?: number;
  /** UDP: an unanswered message is a lost datagram, not an error, and is given up on sooner. */
  datagram?: boolean;
  /** How the plan's messages are encoded and its replies decoded (msgpack, protobuf); JSON text when left out. */
  wire?: WireFormat;
}

export interface ClientHandlers {
  /** The connection is open and its session (if any) done: the client's traffic starts. */
  onOpen(connection: TransportConnection, session?: SessionDone): void;
  onMessage(data: Buffer, receivedAt: number): void;
  /** Steps run before onOpen (the plan's `session`); while they run, messages go to them, not to onMessage. */
  session?: { steps: CompiledSession; room?: number };
  /**
   * Counts a session that failed (`cause`), or that its connection ended ("closed"); login-storm counts them as
   * failed logins. Without it a failure is counted as error(cause), and an ended connection as its close.
   */
  sessionFailed?(cause: SessionFailure | "closed"): void;
  /**
   * The engine stops the client: `atRunEnd` at the run's end (or its abort), else a load shape ramping down. Called
   * before onEnd; messages still unanswered then go to `inFlightAtEnd` at the run's end, not to errors or losses.
   */
  onStop?(atRunEnd: boolean): void;
  /** After the connection ended, whoever ended it; clear timers here. */
  onEnd?(): void;
  /**
   * Messages sent as the engine stops the client, after onStop and onEnd and before its connection closes (movement-
   * sync's leave steps); the close waits for the promise. Messages arriving meanwhile are ignored, and the close
   * counts as the agent's.
   */
  leave?(connection: TransportConnection): Promise<void> | undefined;
  /** Give up connecting after this long and count the failure as "timeout". */
  connectTimeoutMs?: number;
}

export interface OpenedClient {
  connection: TransportConnection;
  /** Stops the client (ClientHandlers.onStop) and closes its connection. */
  stop(atRunEnd?: boolean): Promise<void>;
}

/** Opens one client's connection and does the bookkeeping every scenario shares: connect time, close causes, errors. */
export function openClient(context: ScenarioContext, index: number, handlers: ClientHandlers): OpenedClient {
  const { metrics, sourceAddresses } = context;
  let stopped = false;
  let timedOut = false;
  let connectTimer: NodeJS.Timeout | undefined;
  const startedAt = performance.now();
  const localAddress = sourceAddresses?.length ? sourceAddresses[index % sourceAddresses.length] : undefined;
  // The session in progress; messages go to it until it is done, and none go anywhere after it failed.
  let session: SessionRun | undefined;
  let sessionFailed = false;
  const connection = context.transport.open(
    {
      onOpen() {
        clearTimeout(connectTimer);
        metrics.connectionOpened((performance.now() - startedAt) * 1000);
        if (stopped) return;
        if (!handlers.session) return handlers.onOpen(connection);
        session = new SessionRun(handlers.session.steps, connection, { client: index, room: handlers.session.room }, metrics, {
          done(result) {
            session = undefined;
            if (!stopped) handlers.onOpen(connection, result);
          },
          failed(cause) {
            session = undefined;
            sessionFailed = true;
            if (handlers.sessionFailed) handlers.sessionFailed(cause);
            else metrics.error(cause);
            void connection.close();
          },
        });
        session.start();
      },
      onMessage(data, receivedAt) {
        metrics.messageReceived(data.length);
        if (stopped || sessionFailed) return;
        if (session) session.onMessage(data, receivedAt);
        else handlers.onMessage(data, receivedAt);
      },
      onEnd(end) {
        clearTimeout(connectTimer);
        if (session && !stopped) handlers.sessionFailed?.("closed");
        session?.cancel();
        session = undefined;
        handlers.onEnd?.();
        if (timedOut && !end.opened) return metrics.connectionFailed("timeout");
        recordEnd(metrics, end, stopped);
      },
    },
    localAddress ? { localAddress, ...(context.localPorts ? { localPorts: context.localPorts } : {}) } : {},
  );
  if (handlers.connectTimeoutMs !== undefined) {
    connectTimer = setTimeout(() => {
      timedOut = true;
      void connection.close(0);
    }, handlers.connectTimeoutMs);
  }
  return {
    connection,
    stop(atRunEnd = false) {
      stopped = true;
      clearTimeout(connectTimer);
      // A session step's reply still awaited at the run's end was cut short by the run, like a ping in flight.
      if (atRunEnd && session?.awaitingReply) metrics.inFlightAtEnd(1);
      session?.cancel();
      session = undefined;
      handlers.onStop?.(atRunEnd);
      handlers.onEnd?.();
      const leaving = handlers.leave?.(connection);
      return leaving ? leaving.then(() => connection.close()) : connection.close();
    },
  };
}

function recordEnd(metrics: ScenarioMetrics, end: TransportEnd, stoppedByUs: boolean): void {
  if (!end.opened) return metrics.connectionFailed(end.error ? causeOf(end.error) : "error");
  if (stoppedByUs) return metrics.connectionClosed("agent");
  if (end.error) {
    const cause = causeOf(end.error);
    metrics.connectionClosed(cause === "reset" ? "reset" : "error");
    return metrics.error(cause);
  }
  // A close we did not ask for mid-run: the server dropped the client.
  metrics.connectionClosed(end.byPeer ? "server" : "agent");
  if (end.byPeer) metrics.error("closed-by-server");
}

/** Keeps a scenario's clients by index, so the engine can stop one or all. */
export function clientSet<C extends { stop(atRunEnd?: boolean): Promise<void> }>(start: (index: number) => C): ScenarioRunner {
  const clients = new Map<number, C>();
  let closing = false;
  return {
    startClient(index) {
      if (!closing && !clients.has(index)) clients.set(index, start(index));
    },
    stopClient(index) {
      const client = clients.get(index);
      clients.delete(index);
      void client?.stop();
    },
    async close() {
      closing = true;
      // Every client is stopped before the first await: what is in flight is counted by the time close() returns.
      await Promise.all([...clients.values()].map((client) => client.stop(true)));
      clients.clear();
    },
  };
}

/** Microseconds on this process's clock (what send timestamps in messages use) at `at`, a performance.now() time; now by default. */
export function nowMicros(at = performance.now()): number {
  return Math.round((performance.timeOrigin + at) * 1000);
}
