import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { RunAssignment } from "@throng/protocol/agent";
import { runTag } from "@throng/protocol/run-tag";
import type { ScenarioRunner } from "../scenarios/scenario";
import { NO_SCRIPT_STORE, scriptRefusal, type ScriptPermission } from "./script-permission";
import type { ScriptMetricsPart } from "./script-tally";
import { SCRIPT_WORKER_MARK, type FromScriptWorker, type ScriptWorkerData, type ToScriptWorker } from "./script-worker";

/** What the agent's owner allows scripts: carried from the CLI to every engine. */
export interface ScriptOptions {
  /** `--allow-scripts`; without it a script shard is refused. */
  permission?: ScriptPermission;
  /** `--allow-target`: a script's own sockets are held to it too. */
  allowTargets?: string[];
  /**
   * A plan's `script: { sha256 }` as a verified file: the agent's main process fetches the bundle over its control
   * connection and checks its hash before any engine starts (cli/commands.ts), so engine processes, which hold no
   * connection, only ever import a file named by its hash.
   */
  bundlePath?: string;
}

/** After the run's end, how long clients get to settle before their worker is terminated. */
export const END_GRACE_MS = 2_000;
/** How long a second's snapshot waits for the worker's part; a busier worker's part lands in the next second. */
const FLUSH_WAIT_MS = 200;
const LOAD_TIMEOUT_MS = 30_000;

/** A script shard's worker, as the engine drives it. */
export interface ScriptShard {
  /** The runner the engine starts and stops clients on (close: the run's end, at most END_GRACE_MS, then terminate). */
  readonly runner: ScenarioRunner;
  /** Where every part the worker sends is folded: the engine's snapshot builder. */
  foldInto(builder: { fold(part: ScriptMetricsPart): void }): void;
  /**
   * Asks for everything measured since the last flush; resolves once it is folded, or after FLUSH_WAIT_MS (a late part
   * lands in the next second). `final`: the run's last second, which has no next one: waits up to END_GRACE_MS.
   */
  flush(final?: boolean): Promise<void>;
  terminate(): Promise<void>;
}

/**
 * The worker thread. From source (tsx, vitest) it registers tsx and imports script-worker.ts; in the bundled agent
 * it is the agent's own file, whose main runs the worker when workerData says so (cli/main.ts).
 */
function spawnWorker(data: ScriptWorkerData): Worker {
  const here = import.meta.url;
  if (!here.endsWith(".ts")) return new Worker(new URL(here), { workerData: data });
  // tsx's ESM API (its "import" entry beside the "require" one resolved here) registers its hooks for this thread.
  const loader = pathToFileURL(
    createRequire(here)
      .resolve("tsx/esm/api")
      .replace(/\.cjs$/, ".mjs"),
  ).href;
  const entry = new URL("./script-worker.ts", here).href;
  const code = `import(${JSON.stringify(loader)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); }).then((worker) => worker.runScriptWorker());`;
  return new Worker(code, { eval: true, workerData: data });
}

/**
 * Starts a script shard's worker and loads its script: refused without the owner's permission, and failing with the
 * script's own message when it cannot load. One worker per engine process runs all of that engine's clients.
 */
export async function startScriptShard(
  assignment: RunAssignment,
  options: ScriptOptions = {},
  log = (line: string) => console.error(line),
): Promise<ScriptShard> {
  const { scenario } = assignment.plan;
  if (scenario.kind !== "script") throw new Error(`not a script scenario: ${scenario.kind}`);
  const refused = await scriptRefusal(scenario, options.permission);
  if (refused) throw new Error(refused);
  const path = "path" in scenario.script ? scenario.script.path : options.bundlePath;
  if (path === undefined) throw new Error(NO_SCRIPT_STORE);
  const worker = spawnWorker({
    [SCRIPT_WORKER_MARK]: true,
    path,
    scenario: {
      ...(scenario.parameters ? { parameters: scenario.parameters } : {}),
      ...(scenario.roomSize ? { roomSize: scenario.roomSize } : {}),
      ...(scenario.timeoutMs ? { timeoutMs: scenario.timeoutMs } : {}),
      ...(scenario.metrics ? { metrics: scenario.metrics } : {}),
    },
    target: assignment.plan.target,
    run: runTag(assignment.runId),
    allowTargets: options.allowTargets ?? [],
  });
  // A worker left behind by a failure never holds the process open.
  worker.unref();
  let exited = false;
  let running = false;
  let closing = false;
  let fold: (part: ScriptMetricsPart) => void = () => {};
  let lastFlush = Promise.resolve();
  const waiting = { flushed: [] as (() => void)[], ended: [] as (() => void)[] };
  const release = (list: (() => void)[]) => {
    for (const resolve of list.splice(0)) resolve();
  };
  const post = (message: ToScriptWorker) => !exited && worker.postMessage(message);
  const loaded = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`script ${path} did not finish loading in ${LOAD_TIMEOUT_MS / 1000} s`)),
      LOAD_TIMEOUT_MS,
    );
    worker.on("message", (message: FromScriptWorker) => {
      if (message.type === "loaded" || message.type === "load-failed") {
        clearTimeout(timer);
        if (message.type === "loaded") resolve();
        else reject(new Error(message.error));
      } else if (message.type === "flushed") {
        fold(message.part);
        release(waiting.flushed);
      } else if (message.type === "log") log(`warning: script error: ${message.message}`);
      else release(waiting.ended);
    });
    worker.on("error", (error) => {
      clearTimeout(timer);
      reject(new Error(`script ${path} failed: ${error.message}`));
    });
    worker.on("exit", (code) => {
      exited = true;
      clearTimeout(timer);
      reject(new Error(`script ${path}: its worker exited (code ${code}) while loading`));
      if (running && !closing)
        log(`warning: the script's worker exited (code ${code}) before the run ended: its clients stopped`);
      release(waiting.flushed);
      release(waiting.ended);
    });
  });
  try {
    await loaded;
  } catch (error) {
    await worker.terminate();
    throw error;
  }
  running = true;
  const terminate = async () => {
    closing = true;
    if (!exited) await worker.terminate();
  };
  /** Resolves on the worker's answer or after `ms`, whichever is first. */
  const answer = (list: (() => void)[], ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      list.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  return {
    runner: {
      startClient: (index) => post({ type: "start", index }),
      stopClient: (index) => post({ type: "stop", index }),
      async close() {
        closing = true;
        if (exited) return;
        post({ type: "end" });
        await answer(waiting.ended, END_GRACE_MS);
        // The engine asks for the last second's part just after the end: the worker answers it before it goes.
        await lastFlush;
        await terminate();
      },
    },
    foldInto(builder) {
      fold = (part) => builder.fold(part);
    },
    flush(final = false) {
      if (exited) return Promise.resolve();
      post({ type: "flush" });
      lastFlush = answer(waiting.flushed, final ? END_GRACE_MS : FLUSH_WAIT_MS);
      return lastFlush;
    },
    terminate,
  };
}
