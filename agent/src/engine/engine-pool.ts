import { fork, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** The hidden CLI command an engine process runs (the CLI bundle's own entry, when the engine's is missing). */
export const ENGINE_CHILD_COMMAND = "engine-child";

/**
 * V8 flags for engine processes. A semi-space of 2 MiB instead of up to 16: V8's young generation grew to 32 MiB per
 * engine, touched and kept, which at 11 engines for 200,000 clients was a third of the agent's memory; pings every
 * few seconds allocate little, so the smaller nursery costs no measurable CPU (docs/benchmarks.md, "c200k").
 */
export const ENGINE_V8_FLAGS = ["--max-semi-space-size=2"];

/**
 * The file an engine process runs for the CLI at `cliEntry`: the engine's own bundle beside the CLI bundle
 * (dist/throng-engine.mjs), or engine-main.ts beside the CLI's source; else the CLI itself (ENGINE_CHILD_COMMAND).
 */
export function engineEntry(cliEntry: string): string {
  const sibling =
    basename(cliEntry) === "main.ts"
      ? join(dirname(cliEntry), "..", "engine", "engine-main.ts")
      : join(dirname(cliEntry), "throng-engine.mjs");
  return existsSync(sibling) ? sibling : cliEntry;
}

/** Execution flags for an engine: this process's (e.g. tsx's loader), with ENGINE_V8_FLAGS unless they set their own. */
export function engineExecArgv(execArgv = process.execArgv): string[] {
  return [
    ...execArgv,
    ...ENGINE_V8_FLAGS.filter((flag) => !execArgv.some((given) => given.startsWith(flag.split("=")[0]!))),
  ];
}

/** Forks one engine process (for the CLI at `entry`, see engineEntry) and waits until it is ready. */
export function forkEngine(entry: string): Promise<ChildProcess> {
  const child = fork(engineEntry(entry), [ENGINE_CHILD_COMMAND], {
    execArgv: engineExecArgv(),
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
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
  const idle: Array<Promise<ChildProcess>> = [];
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
    if (forks.length && onSparesReady)
      void Promise.allSettled(idle).then(
        (results) => !closed && onSparesReady(results.filter((r) => r.status === "fulfilled").length),
      );
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
      const children = await Promise.all([
        ...spares.map(usable),
        ...Array.from({ length: count - spares.length }, () => forkEngine(entry)),
      ]);
      // Replacements are forked once this shard's engines have exited, not while its load is running.
      void Promise.all(
        children.map((child) =>
          child.exitCode === null ? new Promise((resolve) => child.once("exit", resolve)) : undefined,
        ),
      ).then(refill);
      return children;
    },
    close() {
      closed = true;
      for (const forked of idle.splice(0))
        void forked.then(
          (child) => child.connected && child.disconnect(),
          () => undefined,
        );
    },
  };
}
