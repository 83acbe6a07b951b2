import type { NetworkCohort } from "@throng/protocol/network";

/**
 * One direction of one client's link under a cohort's conditions: what happens to each packet (a datagram on the
 * agent's datagram path, a whole message above a stream). The kernel path (agent/native/throng_netq.c) decides
 * each packet the same way, with the same draws in the same order: loss, reorder, jitter, duplicate.
 */

/** A cohort's conditions in one direction, in the units the decisions use. */
export interface LinkConditions {
  delayMs: number;
  jitterMs: number;
  /** 0..1 */
  loss: number;
  duplicate: number;
  reorder: number;
  /** The link's rate, bytes per ms; 0: no limit. */
  bytesPerMs: number;
}

/** A link's backlog beyond which a packet is dropped (a full buffer on a slow link). */
export const MAX_BACKLOG_MS = 1_000;

/** What a cohort's links did, summed over its clients (the snapshot's network* counters). */
export interface LinkTally {
  packets: number;
  dropped: number;
  duplicated: number;
  reordered: number;
  overflowed: number;
}

export function emptyTally(): LinkTally {
  return { packets: 0, dropped: 0, duplicated: 0, reordered: 0, overflowed: 0 };
}

/** The cohort's conditions for client-to-server (up) and server-to-client (down); undefined where none apply. */
export function linkConditions(cohort: NetworkCohort): { up?: LinkConditions; down?: LinkConditions } {
  const conditions: LinkConditions = {
    delayMs: cohort.delayMs ?? 0,
    jitterMs: cohort.jitterMs ?? 0,
    loss: (cohort.lossPercent ?? 0) / 100,
    duplicate: (cohort.duplicatePercent ?? 0) / 100,
    reorder: (cohort.reorderPercent ?? 0) / 100,
    bytesPerMs: cohort.bandwidthKbps ? cohort.bandwidthKbps / 8 : 0,
  };
  const direction = cohort.direction ?? "both";
  return {
    ...(direction !== "down" ? { up: conditions } : {}),
    ...(direction !== "up" ? { down: conditions } : {}),
  };
}

/** A packet's fate: dropped, or released at `at` (performance.now() ms), and whether a copy follows it. */
export const DROPPED = -1;

export class Link {
  private linkFreeAt = 0;
  private lastReleaseAt = 0;
  /** Set by decide(): the packet just decided goes twice. */
  duplicated = false;

  constructor(
    readonly conditions: LinkConditions,
    private readonly random: () => number,
    private readonly tally: LinkTally,
  ) {}

  /** When a packet of `bytes` that reached the link at `now` leaves it, or DROPPED. */
  decide(now: number, bytes: number): number {
    const { conditions, tally } = this;
    tally.packets += 1;
    this.duplicated = false;
    if (this.random() < conditions.loss) {
      tally.dropped += 1;
      return DROPPED;
    }
    let sentAt = now;
    if (conditions.bytesPerMs > 0) {
      const start = Math.max(now, this.linkFreeAt);
      if (start - now > MAX_BACKLOG_MS) {
        tally.overflowed += 1;
        return DROPPED;
      }
      sentAt = this.linkFreeAt = start + bytes / conditions.bytesPerMs;
    }
    let at: number;
    if (this.random() < conditions.reorder) {
      // It skips the delay and overtakes the client's packets still held.
      tally.reordered += 1;
      at = sentAt;
    } else {
      let delay = conditions.delayMs;
      if (conditions.jitterMs > 0) delay += (this.random() * 2 - 1) * conditions.jitterMs;
      // Jitter varies the delay without reordering the client's own packets.
      at = this.lastReleaseAt = Math.max(sentAt + Math.max(0, delay), this.lastReleaseAt);
    }
    if (conditions.duplicate > 0 && this.random() < conditions.duplicate) {
      tally.duplicated += 1;
      this.duplicated = true;
    }
    return at;
  }
}
