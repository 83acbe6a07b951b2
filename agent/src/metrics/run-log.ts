import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { createHash } from "node:crypto";
import type { Numbered } from "./snapshot-buffer";

// The line format of a run's on-disk buffer (disk-buffer.ts, PROTOCOL.md §5.1): `<checksum> <json>\n`.

/**
 * The first 8 hex digits of the JSON's SHA-256: enough to tell a torn or damaged line. (zlib's crc32 would do, but
 * it arrived in Node 20.15 and the agent runs on 20.9.)
 */
export const checksum = (json: string) => createHash("sha256").update(json).digest("hex").slice(0, 8);

const RUN_FILE = /^([0-9a-f-]{36})\.log$/;

/** One record as a checksummed line. */
export const line = (record: object) => {
  const json = JSON.stringify(record);
  return `${checksum(json)} ${json}\n`;
};

type LogRecord = { m: unknown } | { ack: number } | { final: unknown };

/** Reads one log, skipping (and counting) lines whose checksum, JSON or measurement does not hold. */
function parseLog<T extends Numbered>(runId: string, text: string, parse: (value: unknown) => T | undefined) {
  const entries = new Map<number, T>();
  let lastSeq = -1;
  let final: unknown;
  let corrupt = 0;
  const lines = text.split("\n");
  // A last line without its newline is a write the kill cut short.
  if (lines.at(-1) !== "") corrupt += 1;
  for (const text of lines.slice(0, -1)) {
    const space = text.indexOf(" ");
    const json = text.slice(space + 1);
    let record: LogRecord | undefined;
    try {
      if (space === 8 && text.slice(0, 8) === checksum(json)) record = JSON.parse(json) as LogRecord;
    } catch {
      record = undefined;
    }
    if (record && "m" in record) {
      const measurement = parse(record.m);
      if (measurement && measurement.runId === runId) {
        entries.set(measurement.seq, measurement);
        lastSeq = Math.max(lastSeq, measurement.seq);
        continue;
      }
    } else if (record && "ack" in record && Number.isInteger(record.ack)) {
      entries.delete(record.ack);
      lastSeq = Math.max(lastSeq, record.ack);
      continue;
    } else if (record && "final" in record) {
      final = record.final;
      continue;
    }
    if (text !== "") corrupt += 1;
  }
  const sorted = [...entries.values()].sort((a, b) => a.seq - b.seq);
  return { entries: sorted, lastSeq, final, corrupt };
}

/** Every run log in `dir`, read and checked but left as it is (for a fault test or an operator: never writes). */
export async function readRunLogs<T extends Numbered>(
  dir: string,
  parse: (value: unknown) => T | undefined,
  warn: (message: string) => void,
) {
  const logs: { path: string; text: string; log: ReturnType<typeof parseLog<T>> & { runId: string } }[] = [];
  for (const name of await readdir(dir).catch(() => [])) {
    const runId = RUN_FILE.exec(name)?.[1];
    if (!runId) continue;
    const path = join(dir, name);
    const text = await readFile(path, "utf8").catch((error: Error) => {
      warn(`cannot read ${path}: ${error.message}; skipped`);
      return undefined;
    });
    if (text !== undefined) logs.push({ path, text, log: { runId, ...parseLog(runId, text, parse) } });
  }
  return logs;
}
