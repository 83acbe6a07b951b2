import { fork, type ChildProcess } from "node:child_process";

/** The hidden CLI command an engine process runs. */
export const ENGINE_CHILD_COMMAND = "engine-child";

/** Forks one engine process (the CLI entry, with this process's exec arguments, e.g. tsx) and waits until it is ready. */
export function forkEngine(entry: string): Promise<ChildProcess> {
  const child = fork(entry, [ENGINE_CHILD_COMMAND], { execArgv: process.execArgv, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  return new Promise((resolve, reject) => {
    child.once("message", () => resolve(child));
    child.once("exit", (code) => reject(new Error(`engine process exited with ${code} before it was ready`)));
  });
}

/**
 * Engine processes forked ahead of any assignment, so a shard's engines are up well before its start time:
 * forking a Node process costs ~0.5 s of CPU on a busy box, and the server's start lead is 2 s. Each engine
 * runs one shard and exits; the pool forks its replacement once that shard's engines are gone.
 */
export interface EnginePool {
  /** `count` ready engine processes: idle ones first, fresh forks for the rest. */
  take(count: number): Promise<ChildProcess[]>;
  /** Lets every idle engine exit (they are not running anything). */
  close(): void;
}

/** `onSparesReady(up)`: after each (re)fill, how many spares are up, so `connect` can say when it is ready. */
export function createEnginePool(entry: string, size: number, onSparesReady?: (up: number) => void): EnginePool {
  let idle: Array<Promise<ChildProcess>> = [];
  let closed = false;
  const spawnOne = () => {
    const forked = forkEngine(entry);
    // A failed spare is only reported when taken (and then replaced by a fresh fork).
    forked.catch(() => undefined);
    return forked;
  };
  const refill = () => {
    const forks: Array<Promise<ChildProcess>> = [];
    while (!closed && idle.length < size) {
      const forked = spawnOne();
      forks.push(forked);
      idle.push(forked);
    }
    if (forks.length && onSparesReady) void Promise.allSettled(idle).then((results) => !closed && onSparesReady(results.filter((r) => r.status === "fulfilled").length));
  };
  // A spare that died while idle is replaced by a fresh fork rather than handed out.
  const usable = (forked: Promise<ChildProcess>) =>
    forked.then(
      (child) => (child.connected && child.exitCode === null ? child : forkEngine(entry)),
      () => forkEngine(entry),
    );
  refill();
  return {
    async take(count) {
      const spares = idle.splice(0, count);
      const children = await Promise.all([...spares.map(usable), ...Array.from({ length: count - spares.length }, () => forkEngine(entry))]);
      // Replacements are forked once this shard's engines have exited, not while its load is running.
      void Promise.all(children.map((child) => (child.exitCode === null ? new Promise((resolve) => child.once("exit", resolve)) : undefined))).then(refill);
      return children;
    },
    close() {
      closed = true;
      for (const forked of idle.splice(0)) void forked.then((child) => child.connected && child.disconnect(), () => undefined);
    },
  };
}
