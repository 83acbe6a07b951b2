import type { ScriptScenario, Target } from "@throng/protocol/plan";
import { recordBroadcast } from "../scenarios/broadcast-streams";
import { TimerWheel, wheelTimer } from "../transports/timer-wheel";
import type { ScriptTally } from "./script-tally";

/** What a script's client function is given, once per client (docs: agent/README.md, "Scripted clients"). */
export interface ScriptContext {
  /** The client's number in the run (0-based, unique across engines and agents): {{client}} in a plan's templates. */
  readonly client: number;
  /** The run's tag: {{run}} in a plan's templates. */
  readonly run: string;
  /** floor(client / roomSize); 0 without a roomSize. */
  readonly room: number;
  readonly parameters: Readonly<Record<string, string | number | boolean>>;
  /** The plan's target (where the script's clients are meant to connect). */
  readonly target: Target;
  /** Aborted at the run's end, or when the engine stops this client (a ramp-down). */
  readonly signal: AbortSignal;
  /** Times `work` (a promise, or a function called now) into the named histogram in µs; resolves to its result. */
  measure<T>(name: string, work: Promise<T> | (() => T | Promise<T>)): Promise<T>;
  /** A room broadcast received: latency now − sentAtUs (µs on this process's clock), with loss, order and jitter by sender. */
  broadcast(sender: number, seq: number, sentAtUs: number): void;
  /** Adds n (default 1) to the named counter. */
  count(name: string, n?: number): void;
  /** Counts an error (errorsByKind "script-error"); its message is logged once per distinct message. */
  error(cause: unknown): void;
  /** Runs fn every `ms` until cancelled or the client stops; returns the cancel function. */
  every(ms: number, fn: () => unknown): () => void;
}

export type ClientFunction = (ctx: ScriptContext) => unknown;

/** The client function a script module exports: `export default async function (ctx)` or `export async function client(ctx)`. */
export function clientFunctionOf(module: Record<string, unknown>): ClientFunction | undefined {
  const candidate =
    typeof module.default === "function"
      ? module.default
      : typeof module.client === "function"
        ? module.client
        : (module.default as { client?: unknown } | undefined)?.client;
  return typeof candidate === "function" ? (candidate as ClientFunction) : undefined;
}

/** A measure() that outlived the scenario's timeoutMs; already counted, so a client that lets it propagate is not counted again. */
class MeasureTimeout extends Error {}

/** Microseconds on this thread's epoch clock: what scripts stamp with `Math.round((performance.timeOrigin + performance.now()) * 1000)`. */
const nowUs = () => Math.round((performance.timeOrigin + performance.now()) * 1000);

export interface ScriptClientsOptions {
  scenario: Pick<ScriptScenario, "parameters" | "roomSize" | "timeoutMs">;
  target: Target;
  /** ctx.run: the run's tag ({{run}} in a plan's templates). */
  run: string;
}

/** The worker's clients: each started once, its signal aborted when it is stopped or the run ends. */
export function createScriptClients(entry: ClientFunction, tally: ScriptTally, options: ScriptClientsOptions) {
  const wheel = new TimerWheel();
  const runEnd = new AbortController();
  const running = new Map<number, { controller: AbortController; done: Promise<void> }>();
  /** Clients stopped by a ramp-down whose functions may still be settling. */
  const stopping = new Set<Promise<void>>();
  const parameters = Object.freeze({ ...(options.scenario.parameters ?? {}) });
  const { roomSize, timeoutMs } = options.scenario;

  const contextFor = (client: number, signal: AbortSignal): ScriptContext => {
    const streams = new Map<number, { seq: number; arrivedUs: number; sentUs: number }>();
    const failed = (cause: unknown) => {
      if (!(cause instanceof MeasureTimeout)) tally.failed("script-error", cause);
    };
    return {
      client,
      run: options.run,
      room: roomSize ? Math.floor(client / roomSize) : 0,
      parameters,
      target: options.target,
      signal,
      measure(name, work) {
        tally.declare(name, "histogram");
        const started = performance.now();
        let result: Promise<unknown>;
        try {
          result = Promise.resolve(typeof work === "function" ? work() : work);
        } catch (error) {
          result = Promise.reject(error);
        }
        const measured = result.then((value) => {
          tally.measured(name, (performance.now() - started) * 1000);
          return value;
        });
        if (timeoutMs === undefined) return measured as Promise<never>;
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            tally.failed("script-timeout", `measure("${name}") took longer than timeoutMs (${timeoutMs} ms)`);
            reject(new MeasureTimeout(`measure("${name}") timed out after ${timeoutMs} ms`));
          }, timeoutMs);
        });
        return Promise.race([measured, timeout]).finally(() => clearTimeout(timer)) as Promise<never>;
      },
      broadcast(sender, seq, sentAtUs) {
        recordBroadcast(tally.metrics, streams, sender, seq, sentAtUs, nowUs());
      },
      count(name, n = 1) {
        tally.counted(name, n);
      },
      error: (cause) => tally.failed("script-error", cause),
      every(ms, fn) {
        if (!(ms >= 1)) throw new TypeError(`every(${ms}, …): give an interval of at least 1 ms`);
        if (signal.aborted) return () => {};
        let due = performance.now() + ms;
        const timer = wheelTimer(() => {
          // Fixed rate; after a stall the missed runs are skipped, not made up in a burst.
          due = Math.max(due + ms, performance.now());
          wheel.set(timer, due);
          try {
            const result = fn();
            if (result instanceof Promise) result.catch(failed);
          } catch (error) {
            failed(error);
          }
        });
        const cancel = () => {
          wheel.clear(timer);
          signal.removeEventListener("abort", cancel);
        };
        wheel.set(timer, due);
        signal.addEventListener("abort", cancel, { once: true });
        return cancel;
      },
    };
  };

  return {
    /** Starts client `index`, its number in the run (the engine numbers clients run-wide). */
    start(index: number): void {
      if (running.has(index) || runEnd.signal.aborted) return;
      const controller = new AbortController();
      const signal = AbortSignal.any([runEnd.signal, controller.signal]);
      const done = (async () => entry(contextFor(index, signal)))().then(
        () => undefined,
        (error: unknown) => {
          // Rejections after the client was told to stop are how many clients end (an aborted await): not errors.
          if (!signal.aborted && !(error instanceof MeasureTimeout)) tally.failed("script-error", error);
        },
      );
      running.set(index, { controller, done });
    },
    stop(index: number): void {
      const stopped = running.get(index);
      if (!stopped) return;
      running.delete(index);
      stopped.controller.abort();
      stopping.add(stopped.done);
      void stopped.done.then(() => stopping.delete(stopped.done));
    },
    /** The run's end: every client's signal aborts; resolves once every client function has settled. */
    async end(): Promise<void> {
      runEnd.abort();
      await Promise.all([...[...running.values()].map((client) => client.done), ...stopping]);
    },
  };
}
