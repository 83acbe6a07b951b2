import type { SeriesPoint } from "./snapshot";

/** A second of a run for unit tests (the protocol's and the web's): one agent, one client, one of everything; `more` overrides. */
export function seriesPoint(more: Partial<SeriesPoint> = {}): SeriesPoint {
  return {
    t: 1,
    agents: 1,
    clients: 1,
    connections: 1,
    messagesSentPerSec: 1,
    messagesReceivedPerSec: 1,
    bytesSentPerSec: 1,
    bytesReceivedPerSec: 1,
    errors: 0,
    rttP50Ms: 1,
    rttP99Ms: 1,
    rttMaxMs: 1,
    ...more,
  };
}

/** A second in which nothing was sent or measured (no traffic, no round trips); `more` adds what the test is about. */
export function idleSeriesPoint(more: Partial<SeriesPoint> = {}): SeriesPoint {
  return seriesPoint({
    messagesSentPerSec: 0,
    messagesReceivedPerSec: 0,
    bytesSentPerSec: 0,
    bytesReceivedPerSec: 0,
    rttP50Ms: null,
    rttP99Ms: null,
    rttMaxMs: null,
    ...more,
  });
}
