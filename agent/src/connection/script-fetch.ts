import type { AgentToServerMessage, ScriptBundle } from "@throng/protocol/agent";

/** How long the server has to answer a script-fetch (PROTOCOL.md §12); then the shard fails saying so. */
export const SCRIPT_FETCH_TIMEOUT_MS = 30_000;

/** Asks the server for script bundles over the control connection; the answers come back through `receive`. */
export interface ScriptFetcher {
  /** The bundle's source as the server sent it (unverified: the caller checks its hash). */
  fetch(sha256: string): Promise<string>;
  receive(bundle: ScriptBundle): void;
}

interface Waiter {
  resolve(source: string): void;
  reject(error: Error): void;
}

/** One request in flight per hash, however many shards wait for it; `send` is false when no ready socket is up. */
export function createScriptFetcher(
  send: (message: AgentToServerMessage) => boolean,
  timeoutMs = SCRIPT_FETCH_TIMEOUT_MS,
): ScriptFetcher {
  const pending = new Map<string, { waiters: Waiter[]; timer: NodeJS.Timeout }>();
  const settle = (sha256: string, outcome: { source: string } | { error: Error }) => {
    const request = pending.get(sha256);
    if (!request) return;
    pending.delete(sha256);
    clearTimeout(request.timer);
    for (const waiter of request.waiters)
      "source" in outcome ? waiter.resolve(outcome.source) : waiter.reject(outcome.error);
  };
  return {
    fetch(sha256) {
      return new Promise<string>((resolve, reject) => {
        const known = pending.get(sha256);
        if (known) return void known.waiters.push({ resolve, reject });
        if (!send({ type: "script-fetch", payload: { sha256 } })) {
          return reject(new Error(`cannot fetch script bundle ${sha256}: not connected to the server`));
        }
        const timer = setTimeout(
          () =>
            settle(sha256, {
              error: new Error(`the server did not send script bundle ${sha256} within ${timeoutMs / 1000} s`),
            }),
          timeoutMs,
        );
        pending.set(sha256, { waiters: [{ resolve, reject }], timer });
      });
    },
    receive(bundle) {
      if ("source" in bundle) settle(bundle.sha256, { source: bundle.source });
      else
        settle(bundle.sha256, {
          error: new Error(`the server has no script bundle ${bundle.sha256}: ${bundle.error}`),
        });
    },
  };
}
