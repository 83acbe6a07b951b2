// The engine process's own entry (dist/throng-engine.mjs): what `run` and `connect` fork for each engine, and its
// scripts' worker file. It carries the engine alone, not the CLI (commander, yaml, the plan and API schemas), so
// each of a rig's engine processes starts with a smaller heap (docs/benchmarks.md, "c200k").
import { readAgentEnv } from "../env";
import { isScriptWorker, runScriptWorker } from "../scripts/script-worker";
import { preferIo } from "../transports/native-io";
import { runEngineChild } from "./engines";

if (isScriptWorker()) void runScriptWorker();
else {
  preferIo(readAgentEnv(process.env).io);
  runEngineChild();
}
