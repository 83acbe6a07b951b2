import { ShardStatus, type AgentToServerMessage, type RunAssignment, type SearchStep } from "@throng/protocol/agent";
import { redactSecrets } from "@throng/protocol/plan-secrets";
import type { ServerSample } from "@throng/protocol/server-watch";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import type { Clock } from "../engine/clock";
import type { runShard as RunShard } from "../engine/run-shard";
import { createSearchFeed, type SearchFeed } from "../engine/search-feed";
import type { DiskBuffer, RecoveredRun } from "../metrics/disk-buffer";
import { createSnapshotBuffer } from "../metrics/snapshot-buffer";
import type { Logger } from "./logger";

/** Finished shards remembered, so a re-sent assignment is answered instead of run twice. */
const REMEMBERED_SHARDS = 64;
const SHUTDOWN_TIMEOUT_MS = 5_000;

interface Shard {
  runId: string;
  controller: AbortController;
  started: boolean;
  /** Why the agent stopped this shard on its own, which makes it `failed` rather than `finished`. */
  abandoned?: string;
  final?: ShardStatus;
  done: Promise<void>;
  /** Levels of an automatic capacity search, from the server's search-step messages. */
  searchFeed: SearchFeed;
}

export interface ShardManagerOptions {
  runShard: typeof RunShard;
  /** The server clock as currently known; read when a shard starts. */
  clock(): Clock;
  log: Logger;
  bufferCapacity?: number;
  /** The unacknowledged measurements on disk too (PROTOCOL.md §5.1); without it they live in memory only. */
  disk?: DiskBuffer<Measurement>;
  /** What an earlier process of this agent left on disk: re-sent first, and its shards are not resumed. */
  recovered?: RecoveredRun<Measurement>[];
}

export interface ShardManager {
  assign(assignment: RunAssignment): void;
  stop(runId: string, reason: string): void;
  /** An automatic search's next level for a running shard (PROTOCOL.md §10); unknown or finished runs ignore it. */
  searchStep(step: SearchStep): void;
  /** Stops every running shard on the agent's own initiative; they report `failed` with `reason`. */
  abandonAll(reason: string): void;
  /** Whether any shard is still generating load. */
  running(): boolean;
  ack(runId: string, seq: number): void;
  /** A ready socket: resend unacknowledged snapshots, then statuses that could not be sent. */
  attach(send: (message: AgentToServerMessage) => boolean): void;
  detach(): void;
  /** Aborts every running shard and waits (bounded) for their final snapshots and statuses. */
  shutdown(): Promise<void>;
  unackedCount(): number;
}

/** What a shard measures each second; both are acknowledged by (run, seq) with snapshot-ack. */
export type Measurement = MetricSnapshot | ServerSample;

const isServerSample = (m: Measurement): m is ServerSample => "pid" in m;

function measurementMessage(m: Measurement): AgentToServerMessage {
  return isServerSample(m) ? { type: "server-sample", payload: m } : { type: "snapshot", payload: m };
}

/** Runs assigned shards and owns their outgoing snapshots until the server acknowledges them. */
export function createShardManager(options: ShardManagerOptions): ShardManager {
  const { log } = options;
  const buffer = createSnapshotBuffer<Measurement>(options.bufferCapacity);
  const shards = new Map<string, Shard>();
  const pendingStatuses: ShardStatus[] = [];
  let send: ((message: AgentToServerMessage) => boolean) | undefined;
  const { disk } = options;
  for (const run of options.recovered ?? []) recover(run);

  const emit = (message: AgentToServerMessage) => send?.(message) ?? false;
  const sendStatus = (status: ShardStatus) => {
    if (!emit({ type: "shard-status", payload: status })) pendingStatuses.push(status);
  };

  function forgetOldShards(): void {
    const finished = [...shards.values()].filter((shard) => shard.final);
    for (const shard of finished.slice(0, Math.max(0, finished.length - REMEMBERED_SHARDS))) shards.delete(shard.runId);
  }

  function keep(measurement: Measurement): void {
    const dropped = buffer.add(measurement);
    if (!dropped) return;
    log.warn(`snapshot buffer full: dropped unacknowledged snapshot ${dropped.seq} of run ${dropped.runId}`);
    disk?.ack(dropped.runId, dropped.seq);
  }

  /**
   * A run this agent's previous process held when it died: its kept seconds are re-sent on the next ready, then
   * its final status. The load is not resumed mid-run (the clients, their sessions and the seconds between the
   * kill and now are gone), so a shard that had not ended reports `failed`, naming the last second it kept.
   */
  function recover(recovered: RecoveredRun<Measurement>): void {
    for (const entry of recovered.entries) keep(entry);
    const parsed = ShardStatus.safeParse(recovered.final);
    const final: ShardStatus = parsed.success
      ? parsed.data
      : {
          runId: recovered.runId,
          state: "failed",
          lastSeq: recovered.lastSeq,
          error:
            `the agent's process was restarted during the run${recovered.lastSeq >= 0 ? ` (the last second it had kept on disk: ${recovered.lastSeq})` : ""}; ` +
            `it re-sent the ${recovered.entries.length} unacknowledged second(s) it had kept on disk and did not resume the load`,
        };
    if (!parsed.success) disk?.end(recovered.runId, final);
    shards.set(recovered.runId, {
      runId: recovered.runId,
      controller: new AbortController(),
      started: false,
      final,
      done: Promise.resolve(),
      searchFeed: createSearchFeed(),
    });
    pendingStatuses.push(final);
    log.warn(
      `run ${recovered.runId}: recovered ${recovered.entries.length} unacknowledged second(s) from disk; reporting the shard ${final.state}`,
    );
  }

  async function run(shard: Shard, assignment: RunAssignment): Promise<void> {
    let lastSeq = -1;
    const measured = (measurement: Measurement) => {
      lastSeq = measurement.seq;
      keep(measurement);
      disk?.add(measurement);
      emit(measurementMessage(measurement));
    };
    let final: ShardStatus;
    try {
      const result = await options.runShard(assignment, {
        clock: options.clock(),
        signal: shard.controller.signal,
        searchFeed: shard.searchFeed,
        onStart() {
          shard.started = true;
          sendStatus({ runId: shard.runId, state: "started" });
        },
        onSnapshot: measured,
        onServerSample: measured,
      });
      if (result.skipped === "expired") {
        final = {
          runId: shard.runId,
          state: "failed",
          lastSeq: -1,
          error: "the assignment (or its engine processes) came after the run's planned end; no load was generated",
        };
      } else if (shard.abandoned) {
        final = { runId: shard.runId, state: "failed", lastSeq: result.lastSeq, error: shard.abandoned };
      } else {
        final = { runId: shard.runId, state: "finished", lastSeq: result.lastSeq };
      }
    } catch (error) {
      // What failed may quote a text the plan's secrets were written into (a body that is not JSON once filled).
      const message = redactSecrets(error instanceof Error ? error.message : String(error), assignment.secrets ?? {});
      final = { runId: shard.runId, state: "failed", lastSeq, error: message.slice(0, 2000) };
    }
    shard.final = final;
    disk?.end(shard.runId, final);
    sendStatus(final);
    log.info(`run ${shard.runId}: shard ${final.state} (last snapshot seq ${final.lastSeq})`);
    forgetOldShards();
  }

  return {
    assign(assignment) {
      const known = shards.get(assignment.runId);
      if (known) {
        // The gateway re-sends active assignments after every hello: answer, never start twice, but take up
        // the capacity search's level, which may have moved on while this agent was away.
        if (assignment.searchStep && !known.final) known.searchFeed.push(assignment.searchStep);
        if (known.final) sendStatus(known.final);
        else if (known.started) sendStatus({ runId: known.runId, state: "started" });
        return;
      }
      const shard: Shard = {
        runId: assignment.runId,
        controller: new AbortController(),
        started: false,
        done: Promise.resolve(),
        searchFeed: createSearchFeed(),
      };
      shards.set(shard.runId, shard);
      log.info(
        `run ${shard.runId}: shard ${assignment.shardIndex + 1}/${assignment.shardCount}, ${assignment.clients} clients`,
      );
      shard.done = run(shard, assignment);
    },
    stop(runId, reason) {
      const shard = shards.get(runId);
      if (!shard || shard.final) return;
      log.info(`run ${runId}: stopping (${reason})`);
      shard.controller.abort();
    },
    searchStep({ runId, ...level }) {
      const shard = shards.get(runId);
      if (!shard || shard.final) return;
      log.info(
        `run ${runId}: search step ${level.step} (${level.phase}) holds ${level.clients} clients from ${new Date(level.startAt).toISOString()}`,
      );
      shard.searchFeed.push(level);
    },
    abandonAll(reason) {
      for (const shard of shards.values()) {
        if (shard.final || shard.controller.signal.aborted) continue;
        log.warn(`run ${shard.runId}: stopping the load (${reason})`);
        shard.abandoned = reason;
        shard.controller.abort();
      }
    },
    running: () => [...shards.values()].some((shard) => !shard.final),
    ack(runId, seq) {
      buffer.ack(runId, seq);
      disk?.ack(runId, seq);
    },
    attach(sendMessage) {
      send = sendMessage;
      // Snapshots first: a run's finished status must follow its last snapshot.
      for (const measurement of buffer.unacked()) if (!emit(measurementMessage(measurement))) return;
      while (pendingStatuses.length > 0) {
        if (!emit({ type: "shard-status", payload: pendingStatuses[0]! })) return;
        pendingStatuses.shift();
      }
    },
    detach() {
      send = undefined;
    },
    async shutdown() {
      const running = [...shards.values()].filter((shard) => !shard.final);
      for (const shard of running) shard.controller.abort();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_TIMEOUT_MS)));
      await Promise.race([Promise.all(running.map((shard) => shard.done)), timeout]);
      clearTimeout(timer);
    },
    unackedCount: () => buffer.size(),
  };
}
