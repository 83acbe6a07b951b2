import type { SeriesPoint } from "@throng/protocol/snapshot";
import { seriesPoint } from "@throng/protocol/series-point.test-support";

// The protocol's own tests build their seconds the same way: one fixture for both.
export { seriesPoint };

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
