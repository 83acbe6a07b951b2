import type { ShardRow } from "@throng/db/repos/runs";

/** One load shard's seconds that the run should hold and does not, as contiguous [from, to] seq ranges. */
export interface LostSeconds {
  agentId: string;
  ranges: [number, number][];
  count: number;
  /** For the run's event and the verdict's reasons. */
  message: string;
}

export interface LostSecondsInput {
  shards: readonly Pick<ShardRow, "agentId" | "role" | "state" | "lastSeq">[];
  /** The seqs stored per agent. */
  stored: ReadonlyMap<string, ReadonlySet<number>>;
  /** The run's last whole second (its seq) that has happened: the planned last one, or earlier if the run ended early. */
  lastRunSeq: number;
  /** How to name an agent (its host name); its id otherwise. */
  names?: ReadonlyMap<string, string>;
}

const MAX_RANGES_NAMED = 5;

function rangesOf(seqs: number[]): [number, number][] {
  const ranges: [number, number][] = [];
  for (const seq of seqs) {
    const last = ranges.at(-1);
    if (last && last[1] === seq - 1) last[1] = seq;
    else ranges.push([seq, seq]);
  }
  return ranges;
}

const rangeText = ([from, to]: [number, number]) => (from === to ? `${from}` : `${from}–${to}`);

/** Why the seconds are missing, from how the shard ended. */
function cause(state: string, lastSeq: number): string {
  if (state === "lost") return "none of them arrived before its agent was lost (killed or cut off)";
  if (state === "finished" || state === "failed")
    return `they never arrived, though the agent reported its shard ${state} at second ${lastSeq}`;
  return "its agent never sent them nor reported the end of its shard";
}

/**
 * Each load shard's seconds never stored: the holes between its stored seqs, and the seconds after the last stored
 * one up to where the shard ended (its reported lastSeq) or, for a shard that never reported its end (lost, silent),
 * the run's last second. A shard's seconds start at its first stored seq (a shard that starts late numbers from
 * then, PROTOCOL.md §5), or 0 when none is stored. A watcher's samples are not load seconds and are left out.
 */
export function lostSeconds(input: LostSecondsInput): LostSeconds[] {
  const out: LostSeconds[] = [];
  for (const shard of input.shards) {
    if (shard.role !== "load") continue;
    const stored = input.stored.get(shard.agentId) ?? new Set<number>();
    const seqs = [...stored].sort((a, b) => a - b);
    const reported = shard.state === "finished" || shard.state === "failed";
    const end = reported ? (shard.lastSeq ?? seqs.at(-1) ?? -1) : input.lastRunSeq;
    const missing: number[] = [];
    for (let seq = seqs[0] ?? 0; seq <= end; seq++) if (!stored.has(seq)) missing.push(seq);
    if (missing.length === 0) continue;
    const ranges = rangesOf(missing);
    const named =
      ranges.slice(0, MAX_RANGES_NAMED).map(rangeText).join(", ") + (ranges.length > MAX_RANGES_NAMED ? ", …" : "");
    const name = input.names?.get(shard.agentId);
    const agent = name && name !== shard.agentId ? `${name} (${shard.agentId})` : shard.agentId;
    out.push({
      agentId: shard.agentId,
      ranges,
      count: missing.length,
      message: `agent ${agent} lost second${missing.length === 1 ? "" : "s"} ${named} (${missing.length} s): ${cause(shard.state, end)}`,
    });
  }
  return out;
}

/** The run's last second that has happened by `endMs`: the planned last, or earlier for a run that ended before it. */
export function lastRunSeq(startAtMs: number, durationSec: number, endMs: number): number {
  return Math.min(durationSec - 1, Math.floor((endMs - startAtMs) / 1000) - 1);
}
