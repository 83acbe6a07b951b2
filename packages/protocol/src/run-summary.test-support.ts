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

/** A step-up run's summary as a report shows it: 20 clients at the peak over 8 s, 100 messages a second each way. */
export const stepUpRunSummary: RunSummary = runSummary({
  peakClients: 20,
  peakConnections: 20,
  durationSec: 8,
  messagesSent: 800,
  messagesReceived: 800,
  messagesPerSec: 100,
  rttP50Ms: 1,
  rttP99Ms: 4.5,
  rttMaxMs: 9,
});
