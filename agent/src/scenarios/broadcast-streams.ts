import type { ScenarioMetrics } from "../metrics/snapshot-builder";

/** One room member's view of one sender's stream: the last seq and when it arrived, for loss and jitter. */
export interface StreamState {
  seq: number;
  arrivedUs: number;
  sentUs: number;
}

/**
 * Records one received broadcast: latency from the sender's send (same clock: the room is on this agent), loss, order,
 * jitter. False for a duplicate, which is not a broadcast received.
 */
export function recordBroadcast(
  metrics: ScenarioMetrics,
  streams: Map<number, StreamState>,
  sender: number,
  seq: number,
  sentUs: number,
  arrivedUs: number,
): boolean {
  const last = streams.get(sender);
  if (last && seq === last.seq) {
    metrics.duplicate();
    return false;
  }
  if (last && seq < last.seq) {
    metrics.outOfOrder();
    metrics.broadcastMicros(arrivedUs - sentUs);
    return true;
  }
  metrics.broadcastMicros(arrivedUs - sentUs);
  if (last) {
    if (seq > last.seq + 1) metrics.lost(seq - last.seq - 1);
    metrics.jitterMicros(Math.abs(arrivedUs - last.arrivedUs - (sentUs - last.sentUs)));
  }
  // In place: a new object per broadcast lived until the sender's next update and was promoted by the scavenges.
  if (last) {
    last.seq = seq;
    last.arrivedUs = arrivedUs;
    last.sentUs = sentUs;
  } else streams.set(sender, { seq, arrivedUs, sentUs });
  return true;
}
