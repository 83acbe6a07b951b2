import type { WireFormat } from "@throng/wire/wire-format";
import type { RoomTally } from "../metrics/room-tally";
import type { ScenarioMetrics } from "../metrics/snapshot-builder";
import type { LocalPorts } from "../transports/local-ports";
import {
  causeOf,
  failedConnection,
  type OpenOptions,
  type Transport,
  type TransportConnection,
  type TransportEnd,
  type TransportEvents,
} from "../transports/transport";
import { runHttpSteps, type HttpFailure, type TextFields } from "./http-step";
import type { SessionVars } from "@throng/wire/message-template";
import { answer, type Answering, type Responders } from "./respond-rules";
import { SessionRun, type CompiledSession, type SessionDone, type SessionFailure, type StepObserver } from "./session";
import type { TimerWheel } from "../transports/timer-wheel";

/** What the engine drives: it starts clients on its load schedule and closes them all at the end. */
export interface ScenarioRunner {
  /** Starts client `index`: its number in the run ({{client}}, unique across engines and agents). Never throws; failures are counted. */
  startClient(index: number): void;
  /** Stops one client (a load shape ramping down). */
  stopClient?(index: number): void;
  /** A reconnect storm closes client `index`'s connection (it comes back by its reconnect policy); false when it is not connected. */
  dropClient?(index: number): boolean;
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
  /** The most clients this engine runs at once (ping-pong spaces its first pings by it). */
  clients?: number;
  /** UDP: an unanswered message is a lost datagram, not an error, and is given up on sooner. */
  datagram?: boolean;
  /** The engine's timer wheel, shared by every client's timers (and a KCP transport's); a scenario makes its own without. */
  wheel?: TimerWheel;
  /** How the plan's messages are encoded and its replies decoded (msgpack, protobuf); JSON text when left out. */
  wire?: WireFormat;
  /**
   * When the target's url or headers use {{client}} or {{vars.NAME}}: the transport to one client's own target,
   * resolved after its http steps. Left out, every client uses `transport`.
   */
  transportFor?(fields: TextFields, vars: SessionVars): Transport;
  /** Told when each client gets connected and when it ends on its own (engine/reconnects.ts drives reconnects with it). */
  clientEvents?: ClientEvents;
  /** A warning for the agent's log (default: stderr). */
  warn?(message: string): void;
  /** plan.network: each client's cohort, the figures it reports into, and how its connection opens (engine/cohorts.ts). */
  network?: ClientNetwork;
  /** movement-sync: each room's broadcasts expected and received, and their latency (metrics/room-tally.ts). */
  rooms?: RoomTally;
}

/** A shard's network cohorts as its clients see them. */
export interface ClientNetwork {
  /** What client `index` reports into: its cohort's figures and the run's (the run's alone outside any cohort). */
  metricsOf(index: number): ScenarioMetrics;
  /** Client `index`'s cohort's figures alone; undefined outside any cohort (movement-sync counts an expected broadcast for its receiver's cohort). */
  cohortMetricsOf(index: number): ScenarioMetrics | undefined;
  /** How client `index` connects: its cohort's source address and datagram stage, its transport (held above a stream). */
  open(index: number, transport: Transport, options: OpenOptions): { transport: Transport; options: OpenOptions };
}

/** The figures client `index` reports into (its cohort's too, when it is in one). */
export function clientMetrics(context: ScenarioContext, index: number): ScenarioMetrics {
  return context.network ? context.network.metricsOf(index) : context.metrics;
}

/** What ended a client's connection when the agent did not stop it: the server, a break, or a reconnect storm's drop. */
export type DropCause = "server" | "reset" | "error" | "storm";

export interface ClientEvents {
  /** Client `index` is connected and its session done: its traffic runs. */
  up(index: number): void;
  /**
   * Client `index` ended without the engine stopping it: `dropped` says what ended a connection that had opened; left
   * out when the client never got up (an http step, the connect or the session failed).
   */
  down(index: number, dropped?: DropCause): void;
}

const consoleWarn = (message: string) => console.error(`warning: ${message}`);

export interface ClientHandlers {
  /** The connection is open and its session (if any) done: the client's traffic starts. */
  onOpen(connection: TransportConnection, session?: SessionDone): void;
  onMessage(data: Buffer, receivedAt: number): void;
  /** Steps run before onOpen (the plan's `session`); while they run, messages go to them, not to onMessage. */
  session?: { steps: CompiledSession; room?: number; observer?: StepObserver };
  /** The plan's `respond` rules (respond-rules.ts): a message one matches is answered and goes to neither the session nor onMessage. */
  respond?: Responders;
  /** The client's room ({{room}} in respond answers) when it has no session. */
  room?: number;
  /**
   * Counts a session that failed (`cause`), or that its connection ended ("closed"); login-storm counts them as
   * failed logins. Without it a failure is counted as error(cause), and an ended connection as its close.
   */
  sessionFailed?(
    cause: SessionFailure | HttpFailure | "closed",
    client?: number,
    message?: string,
    bytes?: Uint8Array,
  ): void;
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
  /** Stops the client (ClientHandlers.onStop) and closes its connection. */
  stop(atRunEnd?: boolean): Promise<void>;
  /** A reconnect storm's drop: closes the connection of a client whose traffic runs; false for any other client. */
  drop(): boolean;
  /** The client ended without the engine stopping it (dropped, failed, or closed by itself): clientSet may start it anew. */
  readonly ended: boolean;
}

/** A connection not opened yet (the client's http steps are running): sends nothing, closes at once. */
const NOT_CONNECTED: TransportConnection = { send: () => false, close: () => Promise.resolve() };
/** Compiled sessions whose "http-status" failure the agent's log has named, so it says so once per run. */
const statusLogged = new WeakSet<CompiledSession>();

/**
 * Opens one client's connection and does the bookkeeping every scenario shares: connect time, close causes, errors.
 * A session's http steps run first, and the connection opens after them (to the client's own target when the
 * target's url or headers use variables); without http steps or such a target it opens at once.
 */
export function openClient(context: ScenarioContext, index: number, handlers: ClientHandlers): OpenedClient {
  return new Client(context, index, handlers);
}

/**
 * One client: its state as fields and its behaviour on the prototype, and itself the events its transport calls.
 * Closures here cost a context and ~8 function objects per client even for a plan that uses no session, respond
 * rule or http step, and the returned object with a getter fell into dictionary mode (~0.7 KiB per client in all:
 * S1 at 19.5k clients took 4.4 MiB per 1k clients against 3.2 before those features). What only a session, an http
 * step or a respond rule needs is made when the plan has one.
 */
class Client implements OpenedClient, TransportEvents {
  ended = false;
  private stopped = false;
  private up = false;
  private droppedByStorm = false;
  private timedOut = false;
  private sessionFailed = false;
  private connectTimer: NodeJS.Timeout | undefined = undefined;
  // The session in progress; messages go to it until it is done, and none go anywhere after it failed.
  private session: SessionRun | undefined = undefined;
  private connection: TransportConnection = NOT_CONNECTED;
  // The http steps' request in flight, and what they captured.
  private http: AbortController | undefined = undefined;
  private before: { vars: SessionVars; startedAt: number } | undefined = undefined;
  /** With respond rules only: a message without them costs one check of `handlers.respond`. */
  private answering: Answering | undefined = undefined;
  // A fraction, so V8 lays it out as a double from the start.
  private connectStartedAt = 0.5;
  /** The run's figures, and its cohort's when it is in one. */
  private readonly metrics: ScenarioMetrics;

  constructor(
    private readonly context: ScenarioContext,
    private readonly index: number,
    private readonly handlers: ClientHandlers,
  ) {
    this.metrics = clientMetrics(context, index);
    if (handlers.respond) this.answering = { answered: 0, ...this.fields() };
    const httpSteps = handlers.session?.steps.http;
    if (!httpSteps?.length && !context.transportFor) this.connect(context.transport);
    else void this.runHttpSteps(httpSteps ?? []);
  }

  /** {{client}} and {{room}} for the session's and http steps' templates and respond answers. */
  private fields(): { client: number; room?: number } {
    const room = this.handlers.session?.room ?? this.handlers.room;
    return { client: this.index, ...(room !== undefined ? { room } : {}) };
  }

  private async runHttpSteps(httpSteps: NonNullable<CompiledSession["http"]>): Promise<void> {
    const { context, handlers } = this;
    const vars: Record<string, string | number> = {};
    const startedAt = performance.now();
    const fields = this.fields();
    this.http = new AbortController();
    const outcome = await runHttpSteps(httpSteps, fields, vars, this.http.signal, handlers.session?.observer);
    this.http = undefined;
    if (this.stopped) return;
    if (!outcome.ok) {
      if (outcome.status !== undefined && !statusLogged.has(handlers.session!.steps)) {
        statusLogged.add(handlers.session!.steps);
        (context.warn ?? consoleWarn)(
          `an http step answered ${outcome.status}, not an expected status: its sessions fail with "http-status" (said once per run)`,
        );
      }
      this.failSession(outcome.cause);
      this.ended = true;
      handlers.onEnd?.();
      return context.clientEvents?.down(this.index);
    }
    this.before = { vars, startedAt };
    let transport = context.transport;
    try {
      if (context.transportFor) transport = context.transportFor(fields, vars);
    } catch (error) {
      // The target's url or headers use a value that cannot go there (a line break in a header).
      transport = { open: (events) => failedConnection(events, error as Error) };
    }
    this.connect(transport);
  }

  private connect(transport: Transport): void {
    const { context } = this;
    const { sourceAddresses } = context;
    const localAddress = sourceAddresses?.length ? sourceAddresses[this.index % sourceAddresses.length] : undefined;
    let options: OpenOptions = localAddress
      ? { localAddress, ...(context.localPorts ? { localPorts: context.localPorts } : {}) }
      : {};
    // A cohort's client connects from its cohort's addresses, through its cohort's network.
    if (context.network) ({ transport, options } = context.network.open(this.index, transport, options));
    this.connectStartedAt = performance.now();
    this.connection = transport.open(this, options);
    if (this.handlers.connectTimeoutMs !== undefined) {
      this.connectTimer = setTimeout(() => {
        this.timedOut = true;
        void this.connection.close(0);
      }, this.handlers.connectTimeoutMs);
    }
  }

  /** `message` and `bytes` (the reply that failed it) go into the error's sample. */
  private failSession(cause: SessionFailure | HttpFailure, message?: string, bytes?: Uint8Array): void {
    this.sessionFailed = true;
    if (this.handlers.sessionFailed) this.handlers.sessionFailed(cause, this.index, message, bytes);
    else this.metrics.error(cause, this.index, message, bytes);
  }

  private goUp(result?: SessionDone): void {
    this.up = true;
    this.handlers.onOpen(this.connection, result);
    this.context.clientEvents?.up(this.index);
  }

  // TransportEvents: the transport calls these as methods of this client.
  onOpen(): void {
    clearTimeout(this.connectTimer);
    this.metrics.connectionOpened((performance.now() - this.connectStartedAt) * 1000);
    if (this.stopped) return;
    const steps = this.handlers.session?.steps;
    const { before } = this;
    if (!steps?.steps.length) {
      this.goUp(before && { ...before, endedAt: performance.now() });
      return;
    }
    const connection = this.connection;
    this.session = new SessionRun(
      steps,
      connection,
      this.fields(),
      this.metrics,
      {
        done: (result) => {
          this.session = undefined;
          if (!this.stopped) this.goUp(result);
        },
        failed: (cause, message, bytes) => {
          this.session = undefined;
          this.failSession(cause, message, bytes);
          void connection.close();
        },
      },
      this.handlers.session?.observer,
    );
    this.session.start(before);
  }

  onMessage(data: Buffer, receivedAt: number): void {
    this.metrics.messageReceived(data.length);
    if (this.stopped || this.sessionFailed) return;
    const { respond } = this.handlers;
    if (respond !== undefined && answer(respond, data, this.connection, this.answering!, this.metrics)) return;
    if (this.session) this.session.onMessage(data, receivedAt);
    else this.handlers.onMessage(data, receivedAt);
  }

  onEnd(end: TransportEnd): void {
    const { context, handlers } = this;
    clearTimeout(this.connectTimer);
    if (this.session && !this.stopped) handlers.sessionFailed?.("closed", this.index, end.error?.message);
    this.session?.cancel();
    this.session = undefined;
    handlers.onEnd?.();
    if (this.timedOut && !end.opened) this.metrics.connectionFailed("timeout", this.index, CONNECT_TIMED_OUT);
    else recordEnd(this.metrics, end, this.stopped, this.index);
    if (this.stopped) return;
    this.ended = true;
    const dropped = !end.opened || this.sessionFailed ? undefined : this.droppedByStorm ? "storm" : dropCause(end);
    if (dropped || !end.opened || this.sessionFailed) context.clientEvents?.down(this.index, dropped);
  }

  // OpenedClient.
  drop(): boolean {
    if (!this.up || this.stopped || this.ended || this.droppedByStorm) return false;
    this.droppedByStorm = true;
    void this.connection.close();
    return true;
  }

  stop(atRunEnd = false): Promise<void> {
    const { handlers, connection } = this;
    this.stopped = true;
    clearTimeout(this.connectTimer);
    // A session step's reply (or an http step's answer) still awaited at the run's end was cut short by the run, like a ping in flight.
    if (atRunEnd && (this.session?.awaitingReply || this.http)) this.metrics.inFlightAtEnd(1);
    this.http?.abort();
    this.session?.cancel();
    this.session = undefined;
    handlers.onStop?.(atRunEnd);
    handlers.onEnd?.();
    const leaving = handlers.leave?.(connection);
    return leaving ? leaving.then(() => connection.close()) : connection.close();
  }
}

/** What ended a connection that was open, when the agent did not: the cause a reconnect is counted under. */
function dropCause(end: TransportEnd): DropCause | undefined {
  if (end.error) return causeOf(end.error) === "reset" ? "reset" : "error";
  return end.byPeer ? "server" : undefined;
}

/** The samples' words for errors that have no message of their own (error-samples.ts). */
const CONNECT_TIMED_OUT = "the connection did not open within the plan's connect timeout";
const CLOSED_BY_SERVER = "the server closed the connection";

function recordEnd(metrics: ScenarioMetrics, end: TransportEnd, stoppedByUs: boolean, client: number): void {
  if (!end.opened) {
    metrics.connectionFailed(end.error ? causeOf(end.error) : "error", client, end.error?.message);
    return;
  }
  if (stoppedByUs) {
    metrics.connectionClosed("agent");
    return;
  }
  if (end.error) {
    const cause = causeOf(end.error);
    metrics.connectionClosed(cause === "reset" ? "reset" : "error");
    metrics.error(cause, client, end.error.message);
    return;
  }
  // A close we did not ask for mid-run: the server dropped the client.
  metrics.connectionClosed(end.byPeer ? "server" : "agent");
  if (end.byPeer) metrics.error("closed-by-server", client, CLOSED_BY_SERVER);
}

/** Keeps a scenario's clients by index, so the engine can stop, drop or restart one, or stop all. */
export function clientSet<
  C extends { stop(atRunEnd?: boolean): Promise<void>; drop?(): boolean; readonly ended?: boolean },
>(start: (index: number) => C): ScenarioRunner {
  const clients = new Map<number, C>();
  let closing = false;
  return {
    startClient(index) {
      // A client that ended on its own (dropped by the server) starts anew: a reconnect.
      if (!closing && (!clients.has(index) || clients.get(index)!.ended)) clients.set(index, start(index));
    },
    dropClient(index) {
      return clients.get(index)?.drop?.() ?? false;
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
