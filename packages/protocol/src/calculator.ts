import { z } from "zod";

/**
 * The capacity arithmetic game teams do by hand, shared by the browser and the server: from a room's
 * shape and message sizes to messages, packets and bandwidth per second, and from a measured ceiling
 * (packets/s or bandwidth) to the players a server holds. Every figure is per server unless named otherwise.
 */
export const CalculatorInput = z.object({
  playersPerRoom: z.number().int().min(1, "at least 1 player per room").max(100_000),
  /** Updates each player sends per second (e.g. 20 for a 20 Hz tick). */
  messagesPerPlayerPerSec: z.number().min(0).max(10_000),
  /** Each update is broadcast to this share of the room's other players (1 = everyone). */
  fanOut: z.number().min(0, "between 0 and 1").max(1, "between 0 and 1").default(1),
  /** Payload bytes of one update. */
  messageBytes: z.number().int().min(1).max(1_000_000),
  /** Bytes each packet adds on the wire: 28 for UDP/IPv4, 40 for TCP/IPv4 without options, plus framing. */
  overheadBytes: z.number().int().min(0).max(10_000).default(28),
  /** Updates packed into one packet on the way out (1 = one packet per message). */
  messagesPerPacket: z.number().int().min(1).max(1_000).default(1),
  players: z.number().int().min(1).max(100_000_000).default(1_000),
  /** A measured ceiling to turn into a player count; leave out what you do not know. */
  ceilingPacketsPerSec: z.number().min(1).optional(),
  ceilingBitsPerSec: z.number().min(1).optional(),
});
export type CalculatorInput = z.infer<typeof CalculatorInput>;

export interface CalculatorResult {
  /** Messages one room produces per second: its players' updates in, their broadcasts out. */
  roomMessagesInPerSec: number;
  roomMessagesOutPerSec: number;
  /** For `players` players. */
  packetsInPerSec: number;
  packetsOutPerSec: number;
  bitsInPerSec: number;
  bitsOutPerSec: number;
  /** Players the ceilings allow (null where no ceiling was given); the lower one is the answer. */
  playersByPackets: number | null;
  playersByBandwidth: number | null;
  /** The formulas used, in words, for the page to show. */
  formulas: string[];
}

export function calculateCapacity(raw: z.input<typeof CalculatorInput>): CalculatorResult {
  const i = CalculatorInput.parse(raw);
  const receiversPerUpdate = (i.playersPerRoom - 1) * i.fanOut;
  const perPlayerIn = i.messagesPerPlayerPerSec;
  const perPlayerOut = i.messagesPerPlayerPerSec * receiversPerUpdate; // every player receives the others' updates
  const packets = (messages: number) => messages / i.messagesPerPacket;
  const bits = (messages: number) => (messages * i.messageBytes + packets(messages) * i.overheadBytes) * 8;
  const perPlayerPackets = packets(perPlayerIn) + packets(perPlayerOut);
  const perPlayerBits = bits(perPlayerIn) + bits(perPlayerOut);
  return {
    roomMessagesInPerSec: i.playersPerRoom * perPlayerIn,
    roomMessagesOutPerSec: i.playersPerRoom * perPlayerOut,
    packetsInPerSec: i.players * packets(perPlayerIn),
    packetsOutPerSec: i.players * packets(perPlayerOut),
    bitsInPerSec: i.players * bits(perPlayerIn),
    bitsOutPerSec: i.players * bits(perPlayerOut),
    playersByPackets:
      i.ceilingPacketsPerSec && perPlayerPackets > 0 ? Math.floor(i.ceilingPacketsPerSec / perPlayerPackets) : null,
    playersByBandwidth:
      i.ceilingBitsPerSec && perPlayerBits > 0 ? Math.floor(i.ceilingBitsPerSec / perPlayerBits) : null,
    formulas: [
      "messages in per player = updates per second",
      "messages out per player = updates per second × (players per room − 1) × fan-out",
      "packets = messages ÷ messages per packet",
      "bits = (messages × message bytes + packets × overhead bytes) × 8",
      "players a ceiling allows = ceiling ÷ (per-player packets or bits, in + out)",
    ],
  };
}
