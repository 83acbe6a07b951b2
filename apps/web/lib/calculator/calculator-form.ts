// The calculator page's form: text fields → CalculatorInput (the protocol's schema and maths, not ours),
// results worded with units, and the fields a measured run can fill in.
import { CalculatorInput, calculateCapacity, type CalculatorResult } from "@throng/protocol/calculator";
import type { RunView } from "@throng/protocol/run";
import { formatDecimal, formatInteger } from "../shared/format";

export const CALCULATOR_FIELDS = [
  { key: "playersPerRoom", label: "Players per room", unit: "players", hint: "everyone who sees each other's updates" },
  {
    key: "messagesPerPlayerPerSec",
    label: "Messages per player per second",
    unit: "msg/s",
    hint: "e.g. 20 for a 20 Hz tick",
  },
  {
    key: "fanOut",
    label: "Broadcast fan-out",
    unit: "0–1",
    hint: "share of the room's other players each update goes to (1 = everyone)",
  },
  { key: "messageBytes", label: "Message size", unit: "bytes", hint: "payload of one update" },
  {
    key: "overheadBytes",
    label: "Protocol overhead",
    unit: "bytes/packet",
    hint: "28 for UDP/IPv4, 40 for TCP/IPv4, plus your framing",
  },
  {
    key: "messagesPerPacket",
    label: "Messages per packet",
    unit: "msg",
    hint: "updates batched into one packet (1 = none)",
  },
  { key: "players", label: "Players on the server", unit: "players", hint: "for the totals below" },
  {
    key: "ceilingPacketsPerSec",
    label: "Measured packets-per-second ceiling",
    unit: "packets/s",
    hint: "optional: what the server handled at most",
  },
  { key: "ceilingMbitPerSec", label: "Measured bandwidth ceiling", unit: "Mbit/s", hint: "optional: in + out" },
] as const;

export type CalculatorField = (typeof CALCULATOR_FIELDS)[number]["key"];
export type CalculatorForm = Record<CalculatorField, string>;

/** The documented example: ten-player rooms at 20 Hz. */
export const DEFAULT_FORM: CalculatorForm = {
  playersPerRoom: "10",
  messagesPerPlayerPerSec: "20",
  fanOut: "1",
  messageBytes: "50",
  overheadBytes: "28",
  messagesPerPacket: "1",
  players: "1000",
  ceilingPacketsPerSec: "",
  ceilingMbitPerSec: "",
};

export type CalculatorOutcome =
  | { ok: true; result: CalculatorResult }
  | { ok: false; errors: Partial<Record<CalculatorField, string>> };

const number = (text: string) => (text.trim() === "" ? Number.NaN : Number(text.replace(/[,\s_]/g, "")));

export function calculate(form: CalculatorForm): CalculatorOutcome {
  const errors: Partial<Record<CalculatorField, string>> = {};
  for (const { key } of CALCULATOR_FIELDS) {
    const optional = key === "ceilingPacketsPerSec" || key === "ceilingMbitPerSec";
    if (optional && form[key].trim() === "") continue;
    if (!Number.isFinite(number(form[key])))
      errors[key] = form[key].trim() === "" ? "enter a number" : "must be a number";
  }
  if (Object.keys(errors).length) return { ok: false, errors };
  const raw = {
    playersPerRoom: number(form.playersPerRoom),
    messagesPerPlayerPerSec: number(form.messagesPerPlayerPerSec),
    fanOut: number(form.fanOut),
    messageBytes: number(form.messageBytes),
    overheadBytes: number(form.overheadBytes),
    messagesPerPacket: number(form.messagesPerPacket),
    players: number(form.players),
    ...(form.ceilingPacketsPerSec.trim() ? { ceilingPacketsPerSec: number(form.ceilingPacketsPerSec) } : {}),
    ...(form.ceilingMbitPerSec.trim() ? { ceilingBitsPerSec: number(form.ceilingMbitPerSec) * 1_000_000 } : {}),
  };
  const parsed = CalculatorInput.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = (issue.path[0] === "ceilingBitsPerSec" ? "ceilingMbitPerSec" : issue.path[0]) as CalculatorField;
      errors[key] ??= issue.code === "invalid_type" ? "must be a whole number" : issue.message;
    }
    return { ok: false, errors };
  }
  return { ok: true, result: calculateCapacity(parsed.data) };
}

/** Bits per second in the unit a network engineer reads: kbit/s, Mbit/s, Gbit/s (decimal, as links are sold). */
export function formatBits(bitsPerSec: number): string {
  const units = [
    ["Gbit/s", 1e9],
    ["Mbit/s", 1e6],
    ["kbit/s", 1e3],
  ] as const;
  for (const [unit, size] of units) {
    if (bitsPerSec >= size) return `${formatDecimal(bitsPerSec / size, 2)} ${unit}`;
  }
  return `${formatInteger(bitsPerSec)} bit/s`;
}

/** The answer: the lower of what the given ceilings allow, and which ceiling decides it. */
export function playersHeld(result: CalculatorResult): { players: number; by: "packets" | "bandwidth" } | null {
  const { playersByPackets: packets, playersByBandwidth: bandwidth } = result;
  if (packets === null && bandwidth === null) return null;
  if (bandwidth === null || (packets !== null && packets <= bandwidth)) return { players: packets!, by: "packets" };
  return { players: bandwidth, by: "bandwidth" };
}

const SCENARIO_BYTES: Record<string, number> = { "movement-sync": 64 };

/**
 * What a measured run says about the fields: messages per player per second from its totals
 * (messages/s ÷ peak clients), message size and room size from its plan. Null fields are left as they are.
 */
export function fieldsFromRun(run: RunView): Partial<CalculatorForm> {
  const fields: Partial<CalculatorForm> = {};
  const summary = run.summary;
  if (summary && summary.peakClients > 0) {
    fields.messagesPerPlayerPerSec = String(Math.round((summary.messagesPerSec / summary.peakClients) * 100) / 100);
  }
  const scenario = run.spec.scenario;
  const bytes =
    "messageBytes" in scenario && scenario.messageBytes !== undefined
      ? scenario.messageBytes
      : SCENARIO_BYTES[scenario.kind];
  if (bytes !== undefined) fields.messageBytes = String(bytes);
  if (scenario.kind === "movement-sync") fields.playersPerRoom = String(scenario.roomSize);
  return fields;
}
