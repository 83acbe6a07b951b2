import { ServerSample } from "@throng/protocol/server-watch";
import { MetricSnapshot } from "@throng/protocol/snapshot";
import { diskBufferDir, openDiskBuffer } from "../metrics/disk-buffer";
import { readRunLogs } from "../metrics/run-log";
import type { Logger } from "./logger";
import type { Measurement } from "./shards";

/** A stored line is either kind of measurement; a sample carries its process id, a snapshot never does. */
export function parseMeasurement(value: unknown): Measurement | undefined {
  const sample = ServerSample.safeParse(value);
  if (sample.success && typeof (value as { pid?: unknown }).pid === "number") return sample.data;
  const snapshot = MetricSnapshot.safeParse(value);
  return snapshot.success ? snapshot.data : undefined;
}

/** The agent's on-disk buffer for this server, beside its credential file (PROTOCOL.md §5.1), and what it held. */
export function openMeasurementBuffer(configPath: string, server: string, log: Logger) {
  const dir = diskBufferDir(configPath, server);
  return openDiskBuffer<Measurement>({ dir, parse: parseMeasurement, warn: (message) => log.warn(message) });
}

/** What the agent with this credential file keeps on disk for this server, read without touching it (fault tests). */
export async function readMeasurementBuffer(configPath: string, server: string) {
  const logs = await readRunLogs(diskBufferDir(configPath, server), parseMeasurement, () => undefined);
  return logs.map(({ log }) => ({ runId: log.runId, entries: log.entries, lastSeq: log.lastSeq }));
}
