import type { ChildProcess } from "node:child_process";
import type { RunAssignment } from "@throng/protocol/agent";
import type { SearchLevel } from "@throng/protocol/capacity-search";
import type { Scenario } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { createErrorSampleGate } from "../metrics/error-samples";
import { mergeSnapshots } from "../metrics/merge-snapshots";
import { offsetClock } from "./clock";
import { ENGINE_CHILD_COMMAND, forkEngine, type EnginePool } from "./engine-pool";
import { runShard, type RunShardOptions, type ShardResult } from "./run-shard";
import { createSearchFeed } from "./search-feed";
import { planRoomSize } from "./shard-setup";
import type { ScriptOptions } from "../scripts/script-runner";
import { prepareCohortNetwork } from "../network/cohort-network";
import type { CohortRoute } from "./cohorts";

export { ENGINE_CHILD_COMMAND };

type ParentMessage =
  | {
      type: "run";
      assignment: RunAssignment;
      clockOffsetMs: number;
      sourceAddresses?: string[];
      portSlice?: { index: number; count: number };
      scripts?: ScriptOptions;
      cohortRoutes?: CohortRoute[];
    }
  | { type: "search-step"; level: SearchLevel }
  | { type: "stop" };
type ChildMessage =
  | { type: "ready" }
  | { type: "snapshot"; snapshot: MetricSnapshot }
  | { type: "done"; result: ShardResult }
  | { type: "failed"; error: string };

/**
 * Splits a shard's clients over `engines` parts; movement-sync keeps whole rooms together, since a room's
 * broadcast latency needs its players on one clock.
 */
export function splitClients(clients: number, engines: number, roomSize = 1): number[] {
  const rooms = Math.ceil(clients / roomSize);
  const parts = Math.max(1, Math.min(engines, rooms));
  return Array.from({ length: parts }, (_, i) => {
    const firstRoom = Math.floor((rooms * i) / parts);
    const endRoom = Math.floor((rooms * (i + 1)) / parts);
    return Math.min(clients, endRoom * roomSize) - Math.min(clients, firstRoom * roomSize);
  }).filter((n) => n > 0);
}

/**
 * The shard's part for each engine process: its clients, numbered run-wide from its `clientsBefore` ({{client}}),
 * with the plan whole (each engine follows the shape scaled by its share) and a shard index of its own.
 */
export function engineAssignments(assignment: RunAssignment, engines: number): RunAssignment[] {
  const parts = splitClients(assignment.clients, engines, planRoomSize(assignment.plan));
  let before = assignment.clientsBefore ?? 0;
  return parts.map((clients, i) => {
    const part: RunAssignment = {
      ...assignment,
      // Distinct shard indexes seed each engine's reconnect storm apart.
      shardIndex: assignment.shardIndex * 1_000 + i,
      clients,
      clientsBefore: before,
    };
    before += clients;
    return part;
  });
}

/**
 * Script clients one engine runs before a script shard is spread over more engines, when `--engines` is not given.
 * Each engine runs a script in a JavaScript runtime of its own (its own heap, collector and compiler threads, the SDK
 * loaded again), so one engine per core cost more than it gave: 160 @colyseus/sdk bots on 2 engines took 18.7 µs of
 * CPU per received broadcast against 11.1 on one engine and 10.3 in a plain Node process, and fell behind on a busy
 * host (docs/benchmarks.md, "Scripted bots"). 400 such bots need about two thirds of a core (150 broadcasts/s each).
 */
export const SCRIPT_CLIENTS_PER_ENGINE = 400;

/**
 * How many engines a shard runs on: `engines` (one per core by default), except a script shard when its engines
 * were not chosen (`--engines`): one per SCRIPT_CLIENTS_PER_ENGINE clients, at most `engines`.
 */
export function enginesFor(
  scenario: Pick<Scenario, "kind">,
  clients: number,
  engines: number,
  chosen: boolean,
): number {
  if (chosen || scenario.kind !== "script") return engines;
  return Math.max(1, Math.min(engines, Math.ceil(clients / SCRIPT_CLIENTS_PER_ENGINE)));
}

/** What runs in each engine process: one runShard, its snapshots sent to the parent. */
export function runEngineChild(): void {
  const controller = new AbortController();
  const send = (message: ChildMessage) => process.send?.(message);
  process.on("disconnect", () => controller.abort());
  const searchFeed = createSearchFeed();
  send({ type: "ready" });
  process.on("message", (message: ParentMessage) => {
    if (message.type === "stop") return controller.abort();
    if (message.type === "search-step") return searchFeed.push(message.level);
    runShard(message.assignment, {
      clock: offsetClock(message.clockOffsetMs),
      signal: controller.signal,
      searchFeed,
      onSnapshot: (snapshot) => send({ type: "snapshot", snapshot }),
      ...(message.sourceAddresses ? { sourceAddresses: message.sourceAddresses } : {}),
      ...(message.portSlice ? { portSlice: message.portSlice } : {}),
      ...(message.scripts ? { scripts: message.scripts } : {}),
      ...(message.cohortRoutes ? { cohortRoutes: message.cohortRoutes } : {}),
    }).then(
      (result) => send({ type: "done", result }),
      (error: unknown) => send({ type: "failed", error: error instanceof Error ? error.message : String(error) }),
    );
  });
}

/**
 * The pending seconds that can be merged now, in order: each running engine has reported it or a later one (an
 * engine that started late, after a second, never reports that second). The first one still waited for stops it.
 */
export function secondsReady(
  pending: readonly number[],
  reported: readonly number[],
  running: readonly boolean[],
): number[] {
  const ready: number[] = [];
  for (const seq of [...pending].sort((a, b) => a - b)) {
    if (!reported.every((last, i) => !running[i] || last >= seq)) break;
    ready.push(seq);
  }
  return ready;
}

export interface EngineOptions extends RunShardOptions {
  /** Engine processes (one per core); 1 runs in this process. */
  engines: number;
  /** `engines` was given (--engines): a script shard runs on that many too, not on enginesFor's count. */
  enginesChosen?: boolean;
  /** Script to fork (the CLI entry), with this process's exec arguments (e.g. tsx). */
  entry?: string;
  /** Standalone runs: start 100 ms after every engine process is up, not at assignment.startAt. */
  startWhenReady?: boolean;
  /** Engine processes forked ahead of the assignment (connect); without it they are forked here. */
  pool?: EnginePool;
}

/**
 * Runs a shard on several engine processes, each with its own open-file limit and core, and merges their
 * snapshots second by second into one. With one engine this is exactly runShard. A plan's network cohorts are
 * prepared first, in this process, before any load (network/cohort-network.ts: a plan this agent cannot apply is
 * refused here), and their kernel path, when they use it, is closed after the last engine.
 */
export async function runOnEngines(assignment: RunAssignment, options: EngineOptions): Promise<ShardResult> {
  const network = prepareCohortNetwork(assignment.plan);
  if (!network) return runEngines(assignment, options);
  for (const note of network.notes) console.error(`note: ${note}`);
  try {
    return await runEngines(assignment, {
      ...options,
      cohortRoutes: network.routes,
      onSnapshot: (snapshot) => options.onSnapshot(network.addKernelFigures(snapshot)),
    });
  } finally {
    network.close();
  }
}

async function runEngines(assignment: RunAssignment, options: EngineOptions): Promise<ShardResult> {
  const engines = enginesFor(
    assignment.plan.scenario,
    assignment.clients,
    options.engines,
    options.enginesChosen ?? false,
  );
  const parts = engineAssignments(assignment, engines);
  if (parts.length <= 1)
    return runShard(
      options.startWhenReady
        ? { ...assignment, startAt: Math.round((options.clock ?? offsetClock(0)).now()) + 100 }
        : assignment,
      options,
    );
  const entry = options.entry ?? process.argv[1]!;
  const clock = options.clock ?? offsetClock(0);
  const clockOffsetMs = clock.now() - (performance.timeOrigin + performance.now());
  const pending = new Map<number, MetricSnapshot[]>();
  const children: ChildProcess[] = await (options.pool
    ? options.pool.take(parts.length)
    : Promise.all(parts.map(() => forkEngine(entry))));
  const startAt = options.startWhenReady ? Math.round(clock.now()) + 100 : assignment.startAt;
  let lastSeq = -1;
  // Each engine keeps its own first distinct errors; the agent sends each one once, within the same bounds.
  const samples = createErrorSampleGate();
  const deliver = (seq: number) => {
    const parts = pending.get(seq)!;
    pending.delete(seq);
    lastSeq = Math.max(lastSeq, seq);
    const { errorSamples: _, ...merged } = mergeSnapshots(parts);
    const errorSamples = samples.pass(parts.map((part) => part.errorSamples));
    options.onSnapshot(errorSamples ? { ...merged, errorSamples } : merged);
  };
  // The newest second each engine reported: an engine forked late starts at a later second, and the seconds it
  // never had must not wait for it until the shard ends.
  const reported = children.map(() => -1);
  const deliverReady = () => {
    for (const seq of secondsReady(
      [...pending.keys()],
      reported,
      children.map((child) => child.connected),
    ))
      deliver(seq);
  };
  const results = parts.map((part, i) => {
    const child = children[i]!;
    const share: RunAssignment = { ...part, startAt };
    const sourceAddresses = options.sourceAddresses;
    // Disjoint local port slices: two engines never bind the same source address and port.
    const portSlice = { index: i, count: parts.length };
    const { scripts, cohortRoutes } = options;
    child.send({
      type: "run",
      assignment: share,
      clockOffsetMs,
      portSlice,
      ...(sourceAddresses ? { sourceAddresses } : {}),
      ...(scripts ? { scripts } : {}),
      ...(cohortRoutes ? { cohortRoutes } : {}),
    } satisfies ParentMessage);
    return new Promise<ShardResult>((resolve, reject) => {
      child.on("message", (message: ChildMessage) => {
        if (message.type === "snapshot") {
          const list = pending.get(message.snapshot.seq) ?? [];
          list.push(message.snapshot);
          pending.set(message.snapshot.seq, list);
          reported[i] = Math.max(reported[i]!, message.snapshot.seq);
          deliverReady();
        } else if (message.type === "done") resolve(message.result);
        else if (message.type === "failed") reject(new Error(`engine ${i} failed: ${message.error}`));
      });
      child.on("exit", () => resolve({ lastSeq: -1 }));
    });
  });
  // Each engine holds its part of every level the search decides.
  const tell = (message: ParentMessage) => {
    for (const child of children) if (child.connected) child.send(message);
  };
  options.searchFeed?.onLevel((level) => tell({ type: "search-step", level }));
  if (options.onStart) options.onStart();
  const stop = () => tell({ type: "stop" });
  options.signal?.addEventListener("abort", stop, { once: true });
  let ended: ShardResult[];
  try {
    ended = await Promise.all(results);
  } finally {
    options.signal?.removeEventListener("abort", stop);
    // Seconds some engine never reported (it died) are still delivered, from the engines that did.
    for (const seq of [...pending.keys()].sort((a, b) => a - b)) deliver(seq);
    for (const child of children) if (child.connected) child.disconnect();
  }
  // Engines handed their share after the run's end (forked late on a busy host) skip it: say so, not "finished".
  if (lastSeq < 0 && ended.length > 0 && ended.every((result) => result.skipped === "expired"))
    return { lastSeq, skipped: "expired" };
  return { lastSeq };
}
