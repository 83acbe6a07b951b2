import { mkdir, open, rename, rm, type FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { line, readRunLogs } from "./run-log";
import { DEFAULT_BUFFER_CAPACITY, type Numbered } from "./snapshot-buffer";

/**
 * The unacknowledged snapshots of each run, also on disk, so an agent killed mid-run (SIGKILL, OOM, a reboot) can
 * re-send them when it starts again (PROTOCOL.md §5.1). One append-only log per run; each line is
 * `<checksum> <json>\n` holding a measurement, an ack, or the shard's final status. Writes are grouped: whatever
 * was added while the previous write and fsync ran goes out in the next one (one fsync per batch, not per snapshot).
 */

/** A run's log is rewritten with only its unacknowledged entries past this size; newer entries win when they alone exceed it. */
export const DEFAULT_MAX_RUN_BYTES = 32 << 20;
/** Acknowledged lines a log may carry before it is compacted (a rewrite of what is still unacknowledged). */
const COMPACT_AFTER_BYTES = 256 << 10;

/** What the log of one run held when the agent started: its unacknowledged measurements, oldest seq first. */
export interface RecoveredRun<T> {
  runId: string;
  entries: T[];
  /** The highest seq the log mentions (measured or acknowledged); -1 when none. */
  lastSeq: number;
  /** The shard's final status, when the shard had ended before the process did. */
  final?: unknown;
}

export interface DiskBufferOptions<T extends Numbered> {
  /** One directory per agent and server (see diskBufferDir). */
  dir: string;
  /** Validates a stored measurement; undefined makes the line count as corrupt. */
  parse(value: unknown): T | undefined;
  warn(message: string): void;
  maxRunBytes?: number;
  /** Unacknowledged entries kept on disk per run; the oldest leaves the disk (not memory) past it. */
  maxRunEntries?: number;
}

export interface DiskBuffer<T extends Numbered> {
  /** Queues a measurement for the next batch. */
  add(measurement: T): void;
  /** The server stored it (or the memory buffer dropped it): it is no longer re-sent after a restart. */
  ack(runId: string, seq: number): void;
  /** The shard ended with this status; the run's log is deleted once nothing of it is unacknowledged. */
  end(runId: string, final: unknown): void;
  /** Resolves when everything queued so far is on disk. */
  flush(): Promise<void>;
  close(): Promise<void>;
  /** Counters for tests and the log: batches written and fsyncs made. */
  stats(): { batches: number; fsyncs: number };
}

interface RunLog {
  runId: string;
  handle?: FileHandle;
  /** Unacknowledged entries by seq, as the line each was written as. */
  live: Map<number, string>;
  pending: string[];
  pendingEntries: boolean;
  bytes: number;
  maxSeq: number;
  final?: unknown;
  ended: boolean;
  /** The file cannot be written (a full or read-only disk): the run's entries live in memory only. */
  broken: boolean;
  /** Rewrite the log before the next append (it was recovered, possibly with a torn last line). */
  compact: boolean;
}

/** `<config dir>/<config name>-buffer/<server>`: beside the credential file, one directory per API it talks to. */
export function diskBufferDir(configPath: string, server: string): string {
  return join(dirname(configPath), `${basename(configPath).replace(/\.json$/, "")}-buffer`, encodeURIComponent(server));
}

/** Opens the buffer directory and reads what an earlier process of this agent left there. Never throws on bad files. */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: one closure over the buffer's open file and index; its methods share that state (a split is an issue 29 follow-up).
export async function openDiskBuffer<T extends Numbered>(
  options: DiskBufferOptions<T>,
): Promise<{ buffer: DiskBuffer<T>; recovered: RecoveredRun<T>[] }> {
  const { dir, warn } = options;
  const maxRunBytes = options.maxRunBytes ?? DEFAULT_MAX_RUN_BYTES;
  const maxRunEntries = options.maxRunEntries ?? DEFAULT_BUFFER_CAPACITY;
  const runs = new Map<string, RunLog>();
  const recovered: RecoveredRun<T>[] = [];
  let usable = true;
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    usable = false;
    warn(
      `cannot create the snapshot buffer directory ${dir} (${(error as Error).message}): unacknowledged snapshots are kept in memory only and lost if the process is killed`,
    );
  }
  for (const { path, text, log } of usable ? await readRunLogs(dir, options.parse, warn) : []) {
    if (log.corrupt > 0)
      warn(`${path}: skipped ${log.corrupt} damaged line(s) (a write cut short by the kill, or a damaged disk)`);
    recovered.push({
      runId: log.runId,
      entries: log.entries,
      lastSeq: log.lastSeq,
      ...(log.final !== undefined ? { final: log.final } : {}),
    });
    const run = newRun(log.runId);
    for (const entry of log.entries) run.live.set(entry.seq, line({ m: entry }));
    run.maxSeq = log.lastSeq;
    run.bytes = Buffer.byteLength(text);
    if (log.final !== undefined) run.final = log.final;
    // Rewritten at once: a torn last line would swallow the next append.
    run.compact = true;
    runs.set(log.runId, run);
  }

  let flushing: Promise<void> | undefined;
  let queued = false;
  const counts = { batches: 0, fsyncs: 0 };

  function newRun(runId: string): RunLog {
    return {
      runId,
      live: new Map(),
      pending: [],
      pendingEntries: false,
      bytes: 0,
      maxSeq: -1,
      ended: false,
      broken: !usable,
      compact: false,
    };
  }

  function runOf(runId: string): RunLog {
    let run = runs.get(runId);
    if (!run) {
      run = newRun(runId);
      runs.set(runId, run);
    }
    return run;
  }

  function schedule(): void {
    queued = true;
    flushing ??= (async () => {
      await null; // everything added in this tick (several shards' seconds) goes in one batch
      while (queued) {
        queued = false;
        for (const run of [...runs.values()]) await write(run);
      }
    })().finally(() => {
      flushing = undefined;
      if (queued) schedule(); // added by a microtask that ran between the loop's end and this
    });
  }

  async function fail(run: RunLog, error: unknown) {
    run.broken = true;
    run.pending = [];
    await run.handle?.close().catch(() => undefined);
    run.handle = undefined;
    warn(
      `cannot write the snapshot buffer of run ${run.runId} (${(error as Error).message}): its unacknowledged snapshots are kept in memory only`,
    );
  }

  /** Rewrites the log with only what is unacknowledged (newest first into the size bound), then the final status. */
  async function rewrite(run: RunLog): Promise<void> {
    const path = join(dir, `${run.runId}.log`);
    const kept: string[] = [];
    let bytes = 0;
    for (const seq of [...run.live.keys()].sort((a, b) => b - a)) {
      const text = run.live.get(seq)!;
      if (bytes + text.length > (maxRunBytes * 3) / 4) {
        warn(
          `the snapshot buffer of run ${run.runId} is full (${maxRunBytes} bytes): seconds up to ${seq} are kept in memory only`,
        );
        for (const older of [...run.live.keys()].filter((s) => s <= seq)) run.live.delete(older);
        break;
      }
      kept.unshift(text);
      bytes += text.length;
    }
    const records = [
      line({ ack: run.maxSeq }),
      ...kept,
      ...(run.final !== undefined ? [line({ final: run.final })] : []),
    ].join("");
    await run.handle?.close();
    const temp = `${path}.tmp`;
    const handle = await open(temp, "w", 0o600);
    await handle.writeFile(records);
    await handle.datasync();
    await handle.close();
    await rename(temp, path);
    counts.fsyncs += 1;
    run.handle = await open(path, "a", 0o600);
    run.bytes = Buffer.byteLength(records);
    run.compact = false;
  }

  async function write(run: RunLog): Promise<void> {
    if (run.broken) return;
    const path = join(dir, `${run.runId}.log`);
    try {
      if (run.ended && run.live.size === 0) {
        runs.delete(run.runId);
        await run.handle?.close();
        await rm(path, { force: true });
        return;
      }
      if (run.pending.length === 0 && !run.compact) return;
      const text = run.pending.join("");
      const sync = run.pendingEntries;
      run.pending = [];
      run.pendingEntries = false;
      const liveBytes = [...run.live.values()].reduce((sum, l) => sum + l.length, 0);
      if (run.compact || run.bytes + text.length > maxRunBytes || run.bytes - liveBytes > COMPACT_AFTER_BYTES) {
        counts.batches += 1;
        return await rewrite(run); // the rewrite holds every live entry, including this batch's
      }
      if (!run.handle) {
        run.handle = await open(path, "a", 0o600);
        await syncDirectory(dir); // the new file's name must survive a power cut too
      }
      await run.handle.appendFile(text);
      run.bytes += Buffer.byteLength(text);
      counts.batches += 1;
      // An ack lost in a crash costs only a harmless resend; a measurement lost costs a second.
      if (sync) {
        await run.handle.datasync();
        counts.fsyncs += 1;
      }
    } catch (error) {
      await fail(run, error);
    }
  }

  const buffer: DiskBuffer<T> = {
    add(measurement) {
      const run = runOf(measurement.runId);
      if (run.broken) return;
      const text = line({ m: measurement });
      run.live.set(measurement.seq, text);
      if (run.live.size > maxRunEntries) {
        const oldest = Math.min(...run.live.keys());
        run.live.delete(oldest);
        run.pending.push(line({ ack: oldest }));
        warn(
          `the snapshot buffer of run ${run.runId} holds ${maxRunEntries} entries: second ${oldest} is kept in memory only`,
        );
      }
      run.maxSeq = Math.max(run.maxSeq, measurement.seq);
      run.pending.push(text);
      run.pendingEntries = true;
      schedule();
    },
    ack(runId, seq) {
      const run = runs.get(runId);
      if (!run?.live.delete(seq)) return;
      run.pending.push(line({ ack: seq }));
      schedule();
    },
    end(runId, final) {
      const run = runOf(runId);
      run.ended = true;
      run.final = final;
      run.pending.push(line({ final }));
      run.pendingEntries = true;
      schedule();
    },
    async flush() {
      while (flushing) await flushing;
    },
    async close() {
      await buffer.flush();
      for (const run of runs.values()) await run.handle?.close().catch(() => undefined);
      runs.clear();
    },
    stats: () => ({ ...counts }),
  };
  // Recovered logs whose shard had ended and whose entries were all acknowledged are removed now; others compacted.
  for (const run of runs.values()) if (run.final !== undefined) run.ended = true;
  if (runs.size > 0) schedule();
  return { buffer, recovered };
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
