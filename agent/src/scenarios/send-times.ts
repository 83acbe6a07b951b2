// When a room's players sent their recent updates, for broadcasts that carry no send time of their own
// (movement-sync's `broadcast` rule without `sentAtUs`): the room is on this agent, so the sender's own record
// of (sender, seq) → sent time is on the receiver's clock too.

/** A room's ring of recent send times: `depth` slots per player, indexed by seq, so a lookup is one array read. */
export class RoomSendTimes {
  private readonly seqs: Float64Array;
  private readonly sentUs: Float64Array;
  private readonly mask: number;

  /** `firstClient` is the room's first client index; `depth` a power of two (sendTimeDepth). */
  constructor(
    private readonly firstClient: number,
    private readonly roomSize: number,
    depth: number,
  ) {
    this.mask = depth - 1;
    this.seqs = new Float64Array(roomSize * depth).fill(-1);
    this.sentUs = new Float64Array(roomSize * depth);
  }

  record(client: number, seq: number, sentUs: number): void {
    const slot = this.slot(client, seq);
    if (slot < 0) return;
    this.seqs[slot] = seq;
    this.sentUs[slot] = sentUs;
  }

  /** When `client` sent update `seq`; undefined when it is no player of this room or the update has left the ring. */
  sentAt(client: number, seq: number): number | undefined {
    const slot = this.slot(client, seq);
    return slot >= 0 && this.seqs[slot] === seq ? this.sentUs[slot] : undefined;
  }

  private slot(client: number, seq: number): number {
    const member = client - this.firstClient;
    if (!Number.isInteger(member) || member < 0 || member >= this.roomSize || !Number.isInteger(seq) || seq < 0)
      return -1;
    return member * (this.mask + 1) + (seq & this.mask);
  }
}

const MIN_DEPTH = 16;
const MAX_DEPTH = 256;
/** Seconds of each player's updates the ring keeps, within MIN_DEPTH..MAX_DEPTH updates. */
const KEPT_SECONDS = 2;

/**
 * Updates kept per player: about the last 2 s of them (16 at least, 256 at most), as a power of two. As fast as
 * possible, a player has one update in flight (resent after 1 s), so 16.
 */
export function sendTimeDepth(updateHz: number | undefined): number {
  const wanted = updateHz ? Math.ceil(updateHz * KEPT_SECONDS) : MIN_DEPTH;
  let depth = MIN_DEPTH;
  while (depth < wanted && depth < MAX_DEPTH) depth *= 2;
  return depth;
}
