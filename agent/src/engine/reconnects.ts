import type { ReconnectPolicy } from "@throng/protocol/reconnect";
import { backoffDelay } from "../connection/backoff";
import type { ScenarioMetrics } from "../metrics/snapshot-builder";
import type { ClientEvents, DropCause, ScenarioRunner } from "../scenarios/scenario";

const DEFAULT_INITIAL_MS = 500;
const DEFAULT_MAX_MS = 15_000;

/** One shard's reconnects: brings dropped clients back by the scenario's policy, and drops clients for a reconnect storm. */
export interface Reconnects {
  /** What openClient reports each client's ups and downs to (ScenarioContext.clientEvents). */
  readonly events: ClientEvents;
  /** The scenario as the engine drives it: stopping a client (a ramp-down) cancels its reconnect, closing cancels them all. */
  wrap(runner: ScenarioRunner): ScenarioRunner;
  /** A reconnect storm's drop: closes `dropPercent`% of the connected clients, chosen at random; returns how many. */
  storm(dropPercent: number): number;
}

/**
 * A client the server dropped is started again (its session anew, http steps and all) after the policy's delay,
 * counted in reconnectsByCause under what dropped it. While it is coming back, an attempt that fails (an http step,
 * the connect, the session, or another drop) is retried until `maxAttempts`; once it is back the count starts over.
 * A client that never got up the first time is not retried: the policy is about drops.
 */
export function createReconnects(
  policy: ReconnectPolicy | undefined,
  metricsOf: (index: number) => ScenarioMetrics,
  random: () => number,
): Reconnects {
  const kind = policy?.policy ?? "never";
  const backoff = {
    baseMs: policy?.backoff?.initialMs ?? DEFAULT_INITIAL_MS,
    capMs: policy?.backoff?.maxMs ?? DEFAULT_MAX_MS,
    random,
  };
  const connected = new Set<number>();
  const returning = new Map<number, { cause: DropCause; attempts: number; timer?: NodeJS.Timeout }>();
  let runner: ScenarioRunner | undefined;
  let closing = false;

  const cancel = (index: number) => {
    clearTimeout(returning.get(index)?.timer);
    returning.delete(index);
  };
  const events: ClientEvents = {
    up(index) {
      connected.add(index);
      cancel(index);
    },
    down(index, dropped) {
      connected.delete(index);
      if (closing || kind === "never") return;
      let state = returning.get(index);
      if (!state) {
        if (!dropped) return;
        state = { cause: dropped, attempts: 0 };
        returning.set(index, state);
      } else if (policy?.maxAttempts !== undefined && state.attempts >= policy.maxAttempts) {
        return void returning.delete(index);
      }
      const attempt = state;
      const delay = kind === "immediately" ? 0 : backoffDelay(attempt.attempts, backoff);
      attempt.timer = setTimeout(() => {
        attempt.timer = undefined;
        if (closing || returning.get(index) !== attempt) return;
        attempt.attempts += 1;
        metricsOf(index).reconnecting(attempt.cause);
        runner?.startClient(index);
      }, delay);
    },
  };
  return {
    events,
    wrap(inner) {
      runner = inner;
      return {
        startClient: (index) => inner.startClient(index),
        stopClient(index) {
          cancel(index);
          connected.delete(index);
          inner.stopClient?.(index);
        },
        dropClient: (index) => inner.dropClient?.(index) ?? false,
        close() {
          closing = true;
          for (const index of [...returning.keys()]) cancel(index);
          return inner.close();
        },
      };
    },
    storm(dropPercent) {
      const candidates = [...connected];
      const count = Math.round((candidates.length * dropPercent) / 100);
      let dropped = 0;
      // A partial Fisher-Yates shuffle: the first `count` are a uniform random choice.
      for (let i = 0; i < count; i += 1) {
        const j = i + Math.floor(random() * (candidates.length - i));
        [candidates[i], candidates[j]] = [candidates[j]!, candidates[i]!];
        if (runner?.dropClient?.(candidates[i]!)) dropped += 1;
      }
      return dropped;
    },
  };
}
