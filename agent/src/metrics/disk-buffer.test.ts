import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { diskBufferDir, openDiskBuffer, type DiskBufferOptions } from "./disk-buffer";
import { checksum } from "./run-log";

const runId = "6f1c1a34-9a43-4f7e-9d0e-3c2a1b0c9d8e";
interface Entry {
  runId: string;
  seq: number;
  body: string;
}
const entry = (seq: number, body = "x".repeat(100)): Entry => ({ runId, seq, body });
const parse = (value: unknown) => {
  const v = value as Partial<Entry> | null;
  return v && typeof v.runId === "string" && typeof v.seq === "number" && typeof v.body === "string"
    ? (v as Entry)
    : undefined;
};

let dir: string;
let warnings: string[];
const open = (extra: Partial<DiskBufferOptions<Entry>> = {}) =>
  openDiskBuffer<Entry>({ dir, parse, warn: (m) => warnings.push(m), ...extra });
const logPath = () => join(dir, `${runId}.log`);
const line = (json: string) => `${checksum(json)} ${json}\n`;

beforeEach(async () => {
  dir = join(await mkdtemp(join(tmpdir(), "throng-disk-buffer-")), "buffer");
  warnings = [];
});
afterEach(async () => rm(join(dir, ".."), { recursive: true, force: true }));

describe("disk buffer of unacknowledged snapshots (PROTOCOL.md §5.1)", () => {
  it("lives beside the credential file, one directory per server", () => {
    expect(diskBufferDir("/home/a/.config/throng/agent.json", "http://api:4000")).toBe(
      "/home/a/.config/throng/agent-buffer/http%3A%2F%2Fapi%3A4000",
    );
  });

  it("gives a restarted process every unacknowledged entry, in seq order, and the highest seq it saw", async () => {
    const first = await open();
    for (const seq of [0, 1, 2, 3, 4]) first.buffer.add(entry(seq));
    first.buffer.ack(runId, 0);
    first.buffer.ack(runId, 4);
    await first.buffer.close();

    const second = await open();
    expect(second.recovered).toEqual([{ runId, entries: [entry(1), entry(2), entry(3)], lastSeq: 4 }]);
    expect(warnings).toEqual([]);
    await second.buffer.close();
  });

  it("writes and fsyncs once per batch: entries added while a write is under way share the next fsync", async () => {
    const { buffer } = await open();
    for (let seq = 0; seq < 20; seq++) buffer.add(entry(seq));
    await buffer.flush();
    expect(buffer.stats()).toEqual({ batches: 1, fsyncs: 1 });
    buffer.add(entry(20));
    await Promise.resolve(); // its write is under way now
    for (let seq = 21; seq < 30; seq++) buffer.add(entry(seq)); // these wait for it, then go together
    await buffer.flush();
    expect(buffer.stats().fsyncs).toBe(3);
    // Acks alone are written without an fsync: losing one costs a harmless resend, not a second.
    for (let seq = 0; seq < 30; seq++) buffer.ack(runId, seq);
    await buffer.flush();
    expect(buffer.stats().fsyncs).toBe(3);
    await buffer.close();
  });

  it("stays within its byte bound, keeping the newest entries on disk and saying so", async () => {
    const maxRunBytes = 4_096;
    const { buffer } = await open({ maxRunBytes });
    for (let seq = 0; seq < 100; seq++) {
      buffer.add(entry(seq));
      await buffer.flush();
      expect((await stat(logPath())).size).toBeLessThanOrEqual(maxRunBytes);
    }
    await buffer.close();
    const { recovered, buffer: reopened } = await open({ maxRunBytes });
    const seqs = recovered[0]!.entries.map((e) => e.seq);
    expect(seqs.at(-1)).toBe(99);
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i)); // the newest, contiguous
    expect(seqs.length).toBeLessThan(100);
    expect(warnings.some((w) => w.includes("is full"))).toBe(true);
    await reopened.close();
  });

  it("stays within its count bound: the oldest entry leaves the disk", async () => {
    const { buffer } = await open({ maxRunEntries: 3 });
    for (let seq = 0; seq < 5; seq++) buffer.add(entry(seq));
    await buffer.close();
    const { recovered, buffer: reopened } = await open();
    expect(recovered[0]!.entries.map((e) => e.seq)).toEqual([2, 3, 4]);
    await reopened.close();
  });

  it("compacts acknowledged lines away, and deletes a run's log once its shard ended and all is acknowledged", async () => {
    const { buffer } = await open();
    for (let seq = 0; seq < 4_000; seq++) {
      buffer.add(entry(seq));
      buffer.ack(runId, seq);
      if (seq % 100 === 0) await buffer.flush();
    }
    await buffer.flush();
    expect((await stat(logPath())).size).toBeLessThan(600 << 10);
    buffer.add(entry(4_000));
    buffer.end(runId, { runId, state: "finished", lastSeq: 4_000 });
    await buffer.flush();
    expect(await readdir(dir)).toEqual([`${runId}.log`]);
    buffer.ack(runId, 4_000);
    await buffer.flush();
    expect(await readdir(dir)).toEqual([]);
    await buffer.close();
  });

  it("keeps the final status of an ended shard whose entries are not all acknowledged", async () => {
    const { buffer } = await open();
    buffer.add(entry(7));
    buffer.end(runId, { runId, state: "finished", lastSeq: 7 });
    await buffer.close();
    const { recovered, buffer: reopened } = await open();
    expect(recovered).toEqual([
      { runId, entries: [entry(7)], lastSeq: 7, final: { runId, state: "finished", lastSeq: 7 } },
    ]);
    await reopened.close();
  });

  it("tolerates a damaged log: bad checksums, bad JSON and a torn last line are skipped with a warning, never a crash", async () => {
    const { buffer } = await open();
    await buffer.close();
    const good = JSON.stringify({ m: entry(1) });
    const text =
      line(good) +
      `00000000 ${JSON.stringify({ m: entry(2) })}\n` +
      line("{not json") +
      line(JSON.stringify({ m: { nope: 1 } })) +
      line(JSON.stringify({ m: entry(3) })).slice(0, 30);
    await writeFile(logPath(), text);
    const { recovered, buffer: reopened } = await open();
    expect(recovered[0]!.entries).toEqual([entry(1)]);
    expect(warnings).toEqual([expect.stringContaining("skipped 4 damaged line(s)")]);
    // The torn line is rewritten away, so what comes next reads back whole.
    reopened.add(entry(4));
    await reopened.close();
    const again = await open();
    expect(again.recovered[0]!.entries.map((e) => e.seq)).toEqual([1, 4]);
    expect(warnings).toHaveLength(1);
    await again.buffer.close();
  });

  it("falls back to memory only, with a warning, when its directory cannot be made", async () => {
    await writeFile(join(dir, "..", "a-file"), "");
    const { buffer, recovered } = await openDiskBuffer<Entry>({
      dir: join(dir, "..", "a-file", "buffer"),
      parse,
      warn: (m) => warnings.push(m),
    });
    buffer.add(entry(0));
    await buffer.close();
    expect(recovered).toEqual([]);
    expect(warnings).toEqual([expect.stringContaining("kept in memory only")]);
    expect(await readFile(join(dir, "..", "a-file"), "utf8")).toBe("");
  });
});
