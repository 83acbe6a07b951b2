import type { StoredSnapshot } from "@throng/protocol/snapshot";
import { encodeValues } from "./snapshot-histogram";

/** An agent's counters for a second: `open` connections, `messages` each way (64 B out, 20 B back each), no failures. */
export function secondCounters(open: number, messages: number, extra: Record<string, unknown> = {}) {
  return {
    connectionsOpen: open,
    connectionsOpened: 0,
    connectionsFailed: 0,
    connectionsClosed: 0,
    messagesSent: messages,
    messagesReceived: messages,
    bytesSent: messages * 64,
    bytesReceived: messages * 20,
    errors: 0,
    ...extra,
  };
}

/** One agent's second as ingest stores it: 4 clients and nothing measured, unless `parts` says otherwise. */
export function storedSecond(agentId: string, second: number, parts: Partial<StoredSnapshot> = {}): StoredSnapshot {
  return {
    agentId,
    seq: second,
    second,
    intervalMs: 1000,
    clients: 4,
    counters: secondCounters(4, 0),
    rttHist: encodeValues([]),
    histograms: {},
    step: null,
    health: { cpuPercent: 1, eventLoopP99Ms: 1, rssBytes: 1 },
    ...parts,
  };
}

/** Named histograms (µs) under one family of a second's `histograms` (script, sessionSteps), encoded as ingest stores them. */
function namedHistograms(family: string, valuesByName: Record<string, number[]>): Record<string, string> {
  const encoded = Object.fromEntries(
    Object.entries(valuesByName).map(([name, values]) => [name, encodeValues(values)]),
  );
  return { [family]: encoded } as unknown as Record<string, string>;
}

/**
 * One agent's second of named measurements, as ingest stores it: histograms (µs) by name under `family` (script,
 * sessionSteps), and `counters` (the family's own counts) beside the usual ones.
 */
export function namedSecond(
  agentId: string,
  second: number,
  family: "script" | "sessionSteps",
  valuesByName: Record<string, number[]>,
  counters: Record<string, unknown> = {},
): StoredSnapshot {
  return storedSecond(agentId, second, {
    counters: secondCounters(4, 0, counters),
    histograms: namedHistograms(family, valuesByName),
  });
}
