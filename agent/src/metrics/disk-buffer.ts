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
export async function openDiskBuffer<T extends Numbered>(
  options: DiskBufferOptions<T>,
): Promise<{ buffer: DiskBuffer<T>; recovered: RecoveredRun<T>[] }> {
  const { dir, warn } = options;
  let usable = true;
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    usable = false;
    warn(
      `cannot create the snapshot buffer directory ${dir} (${(error as Error).message}): unacknowledged snapshots are kept in memory only and lost if the process is killed`,
    );
  }
  const buffer = new RunLogBuffer<T>(options, usable);
  const recovered: RecoveredRun<T>[] = [];
  for (const { path, text, log } of usable ? await readRunLogs(dir, options.parse, warn) : []) {
    if (log.corrupt > 0)
      warn(`${path}: skipped ${log.corrupt} damaged line(s) (a write cut short by the kill, or a damaged disk)`);
    recovered.push({
      runId: log.runId,
      entries: log.entries,
      lastSeq: log.lastSeq,
      ...(log.final !== undefined ? { final: log.final } : {}),
    });
    buffer.recover(log, Buffer.byteLength(text));
  }
  buffer.settleRecovered();
  return { buffer, recovered };
}

/** What readRunLogs found in one run's log. */
type ReadRunLog<T extends Numbered> = Awaited<ReturnType<typeof readRunLogs<T>>>[number]["log"];

/**
 * The buffer over one append-only log per run: add, ack and end queue lines on the run's log and schedule a batch;
 * a batch appends each run's queued lines (one fsync when they hold a measurement), or rewrites the log when it grew
 * too large or holds too many acknowledged lines.
 */
class RunLogBuffer<T extends Numbered> implements DiskBuffer<T> {
  private readonly dir: string;
  private readonly warn: (message: string) => void;
  private readonly maxRunBytes: number;
  private readonly maxRunEntries: number;
  private readonly runs = new Map<string, RunLog>();
  private flushing: Promise<void> | undefined;
  private queued = false;
  private readonly counts = { batches: 0, fsyncs: 0 };

  constructor(
    options: DiskBufferOptions<T>,
    /** The directory exists: without it, every run's entries live in memory only. */
    private readonly usable: boolean,
  ) {
    this.dir = options.dir;
    this.warn = options.warn;
    this.maxRunBytes = options.maxRunBytes ?? DEFAULT_MAX_RUN_BYTES;
    this.maxRunEntries = options.maxRunEntries ?? DEFAULT_BUFFER_CAPACITY;
  }

  /** Takes over a log an earlier process left: its unacknowledged entries stay live until acknowledged. */
  recover(log: ReadRunLog<T>, bytes: number): void {
    const run = this.newRun(log.runId);
    for (const entry of log.entries) run.live.set(entry.seq, line({ m: entry }));
    run.maxSeq = log.lastSeq;
    run.bytes = bytes;
    if (log.final !== undefined) run.final = log.final;
    // Rewritten at once: a torn last line would swallow the next append.
    run.compact = true;
    this.runs.set(log.runId, run);
  }

  /** Recovered logs whose shard had ended and whose entries were all acknowledged are removed now; others compacted. */
  settleRecovered(): void {
    for (const run of this.runs.values()) if (run.final !== undefined) run.ended = true;
    if (this.runs.size > 0) this.schedule();
  }

  add(measurement: T): void {
    const run = this.runOf(measurement.runId);
    if (run.broken) return;
    const text = line({ m: measurement });
    run.live.set(measurement.seq, text);
    if (run.live.size > this.maxRunEntries) {
      const oldest = Math.min(...run.live.keys());
      run.live.delete(oldest);
      run.pending.push(line({ ack: oldest }));
      this.warn(
        `the snapshot buffer of run ${run.runId} holds ${this.maxRunEntries} entries: second ${oldest} is kept in memory only`,
      );
    }
    run.maxSeq = Math.max(run.maxSeq, measurement.seq);
    run.pending.push(text);
    run.pendingEntries = true;
    this.schedule();
  }

  ack(runId: string, seq: number): void {
    const run = this.runs.get(runId);
    if (!run?.live.delete(seq)) return;
    run.pending.push(line({ ack: seq }));
    this.schedule();
  }

  end(runId: string, final: unknown): void {
    const run = this.runOf(runId);
    run.ended = true;
    run.final = final;
    run.pending.push(line({ final }));
    run.pendingEntries = true;
    this.schedule();
  }

  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  async close(): Promise<void> {
    await this.flush();
    for (const run of this.runs.values()) await run.handle?.close().catch(() => undefined);
    this.runs.clear();
  }

  stats(): { batches: number; fsyncs: number } {
    return { ...this.counts };
  }

  private newRun(runId: string): RunLog {
    return {
      runId,
      live: new Map(),
      pending: [],
      pendingEntries: false,
      bytes: 0,
      maxSeq: -1,
      ended: false,
      broken: !this.usable,
      compact: false,
    };
  }

  private runOf(runId: string): RunLog {
    let run = this.runs.get(runId);
    if (!run) {
      run = this.newRun(runId);
      this.runs.set(runId, run);
    }
    return run;
  }

  private schedule(): void {
    this.queued = true;
    this.flushing ??= (async () => {
      await null; // everything added in this tick (several shards' seconds) goes in one batch
      while (this.queued) {
        this.queued = false;
        for (const run of [...this.runs.values()]) await this.write(run);
      }
    })().finally(() => {
      this.flushing = undefined;
      if (this.queued) this.schedule(); // added by a microtask that ran between the loop's end and this
    });
  }

  private async fail(run: RunLog, error: unknown): Promise<void> {
    run.broken = true;
    run.pending = [];
    await run.handle?.close().catch(() => undefined);
    run.handle = undefined;
    this.warn(
      `cannot write the snapshot buffer of run ${run.runId} (${(error as Error).message}): its unacknowledged snapshots are kept in memory only`,
    );
  }

  /** Rewrites the log with only what is unacknowledged (newest first into the size bound), then the final status. */
  private async rewrite(run: RunLog): Promise<void> {
    const path = join(this.dir, `${run.runId}.log`);
    const kept: string[] = [];
    let bytes = 0;
    for (const seq of [...run.live.keys()].sort((a, b) => b - a)) {
      const text = run.live.get(seq)!;
      if (bytes + text.length > (this.maxRunBytes * 3) / 4) {
        this.warn(
          `the snapshot buffer of run ${run.runId} is full (${this.maxRunBytes} bytes): seconds up to ${seq} are kept in memory only`,
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
    this.counts.fsyncs += 1;
    run.handle = await open(path, "a", 0o600);
    run.bytes = Buffer.byteLength(records);
    run.compact = false;
  }

  private async write(run: RunLog): Promise<void> {
    if (run.broken) return;
    const path = join(this.dir, `${run.runId}.log`);
    try {
      if (run.ended && run.live.size === 0) {
        this.runs.delete(run.runId);
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
      if (run.compact || run.bytes + text.length > this.maxRunBytes || run.bytes - liveBytes > COMPACT_AFTER_BYTES) {
        this.counts.batches += 1;
        return await this.rewrite(run); // the rewrite holds every live entry, including this batch's
      }
      if (!run.handle) {
        run.handle = await open(path, "a", 0o600);
        await syncDirectory(this.dir); // the new file's name must survive a power cut too
      }
      await run.handle.appendFile(text);
      run.bytes += Buffer.byteLength(text);
      this.counts.batches += 1;
      // An ack lost in a crash costs only a harmless resend; a measurement lost costs a second.
      if (sync) {
        await run.handle.datasync();
        this.counts.fsyncs += 1;
      }
    } catch (error) {
      await this.fail(run, error);
    }
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
