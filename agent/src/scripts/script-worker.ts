import { isMainThread, parentPort, workerData } from "node:worker_threads";
import { pathToFileURL } from "node:url";
import type { ScriptScenario, Target } from "@throng/protocol/plan";
import { clientFunctionOf, createScriptClients } from "./script-clients";
import { createScriptTally, type ScriptMetricsPart } from "./script-tally";
import { installSocketGuard } from "./socket-guard";
import { installSocketMeter } from "./socket-meter";

/** workerData marks a script worker, so the bundled CLI (which is also the worker's file) runs this instead of a command. */
export const SCRIPT_WORKER_MARK = "throngScriptWorker";

/** What the engine gives its script worker at start. */
export interface ScriptWorkerData {
  [SCRIPT_WORKER_MARK]: true;
  /** Absolute path of the module (or bundle) to import. */
  path: string;
  scenario: Pick<ScriptScenario, "parameters" | "roomSize" | "timeoutMs" | "metrics">;
  target: Target;
  /** {{run}}: the run's tag (ctx.run). */
  run: string;
  /** The agent's --allow-target list: the script's own sockets are held to it. */
  allowTargets: string[];
}

/** Engine → worker; a client's `index` is its number in the run (ctx.client). `flush` is answered with `flushed`, `end` with `ended` once every client function has settled. */
export type ToScriptWorker =
  | { type: "start"; index: number }
  | { type: "stop"; index: number }
  | { type: "flush" }
  | { type: "end" };
/** Worker → engine. */
export type FromScriptWorker =
  | { type: "loaded" }
  | { type: "load-failed"; error: string }
  | { type: "flushed"; part: ScriptMetricsPart }
  | { type: "log"; message: string }
  | { type: "ended" };

export function isScriptWorker(): boolean {
  return !isMainThread && (workerData as Partial<ScriptWorkerData> | null)?.[SCRIPT_WORKER_MARK] === true;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The worker thread's main: guards sockets, imports the script, then runs clients as the engine says. */
export async function runScriptWorker(): Promise<void> {
  const data = workerData as ScriptWorkerData;
  const port = parentPort!;
  const post = (message: FromScriptWorker) => port.postMessage(message);
  installSocketGuard(data.allowTargets);
  const tally = createScriptTally(data.scenario.metrics, (message) => post({ type: "log", message }));
  installSocketMeter(tally.metrics);
  // A socket's unhandled 'error' or a stray rejection in a script must not take the other clients down with it.
  process.on("uncaughtException", (error) => tally.failed("script-error", error));
  process.on("unhandledRejection", (error) => tally.failed("script-error", error));

  let entry: ReturnType<typeof clientFunctionOf>;
  try {
    entry = clientFunctionOf(await import(pathToFileURL(data.path).href));
  } catch (error) {
    return post({ type: "load-failed", error: `script ${data.path} failed to load: ${messageOf(error)}` });
  }
  if (!entry)
    return post({
      type: "load-failed",
      error: `script ${data.path} exports no client function: write export default async function (ctx) { … } or export async function client(ctx)`,
    });
  const clients = createScriptClients(entry, tally, { scenario: data.scenario, target: data.target, run: data.run });
  port.on("message", (message: ToScriptWorker) => {
    switch (message.type) {
      case "start":
        return clients.start(message.index);
      case "stop":
        return clients.stop(message.index);
      case "flush":
        return post({ type: "flushed", part: tally.flush() });
      case "end":
        return void clients.end().then(() => post({ type: "ended" }));
    }
  });
  post({ type: "loaded" });
}
