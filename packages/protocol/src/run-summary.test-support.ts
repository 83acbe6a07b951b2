import type { RunSummary } from "./run";

/**
 * A run's summary for unit tests (the protocol's and the web's): one agent, 10 clients for 10 s, 100 messages each
 * way, no failure and no round trip measured; `extra` sets what the test is about.
 */
export function runSummary(extra: Partial<RunSummary> = {}): RunSummary {
  return {
    agents: 1,
    peakClients: 10,
    peakConnections: 10,
    durationSec: 10,
    messagesSent: 100,
    messagesReceived: 100,
    messagesPerSec: 10,
    connectionsFailed: 0,
    errors: 0,
    rttP50Ms: null,
    rttP99Ms: null,
    rttMaxMs: null,
    ...extra,
  };
}
