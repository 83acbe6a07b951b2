import type { Scenario } from "@throng/protocol/plan";

/** An agent that can take load, with the cores that size its share and the most clients it holds. */
export interface ShardCandidate {
  agentId: string;
  cores: number;
  /** What the agent said it can hold (agentMaxClients); left out: no limit known. */
  maxClients?: number;
}

/** The unit a plan's clients are split in: whole rooms for movement-sync and for scripts with a roomSize. */
export function roomUnit(scenario: Scenario): number {
  if (scenario.kind === "movement-sync") return scenario.roomSize;
  if (scenario.kind === "script") return scenario.roomSize ?? 1;
  return 1;
}

export interface ShardPlan {
  agentId: string;
  shardIndex: number;
  clients: number;
}

/**
 * Splits `clients` across agents in proportion to their cores (largest remainder), so every client is placed
 * exactly once, never more to an agent than its `maxClients` (what it is capped at goes to the others, by cores);
 * agents that would get none are left out, and nothing is placed ([]) when together they cannot hold the clients.
 * With `unit` (a room's size) whole units are split, so a room never spans agents and one clock measures its
 * broadcasts. The partial room rides with the last shard: every shard then starts on a room boundary, so a
 * script's ctx.room (its client index over the whole run / roomSize) names rooms that live on one agent.
 */
export function splitClients(clients: number, agents: readonly ShardCandidate[], unit = 1): ShardPlan[] {
  if (unit > 1 && clients < unit)
    return splitClients(clients, agents.filter((a) => (a.maxClients ?? Infinity) >= clients).slice(0, 1)); // one partial room
  if (unit > 1) {
    const inUnits = agents.map((a) => ({
      ...a,
      ...(a.maxClients !== undefined ? { maxClients: Math.floor(a.maxClients / unit) } : {}),
    }));
    const units = splitClients(Math.floor(clients / unit), inUnits);
    const rest = clients - Math.floor(clients / unit) * unit;
    return units.map((s, i) => ({ ...s, clients: s.clients * unit + (i === units.length - 1 ? rest : 0) }));
  }
  if (agents.length === 0 || clients <= 0) return [];
  const caps = agents.map((a) => Math.max(0, a.maxClients ?? Infinity));
  if (caps.reduce((sum, cap) => sum + cap, 0) < clients) return [];
  // Water-filling: agents whose share by cores passes their cap get their cap, the rest is shared again. Bounded:
  // every pass caps at least one more agent or ends.
  const shares = agents.map(() => 0);
  const capped = new Set<number>();
  for (;;) {
    const free = agents.map((_, i) => i).filter((i) => !capped.has(i));
    const left = clients - [...capped].reduce((sum, i) => sum + caps[i]!, 0);
    const byCores = shareByCores(
      left,
      free.map((i) => Math.max(1, agents[i]!.cores)),
    );
    const over = free.filter((i, k) => byCores[k]! > caps[i]!);
    if (over.length === 0) {
      for (const [k, i] of free.entries()) shares[i] = byCores[k]!;
      for (const i of capped) shares[i] = caps[i]!;
      break;
    }
    for (const i of over) capped.add(i);
  }
  return agents
    .map((a, i) => ({ agentId: a.agentId, clients: shares[i] ?? 0 }))
    .filter((s) => s.clients > 0)
    .map((s, shardIndex) => ({ ...s, shardIndex }));
}

/**
 * The clients of the shards before `shard`: the run-wide number of its first client ({{client}}), and where its part
 * of every level starts. Shards on room boundaries make this a multiple of the room size.
 */
export function clientsBefore(
  shards: readonly { shardIndex: number; clients: number }[],
  shard: { shardIndex: number },
): number {
  return shards.filter((s) => s.shardIndex < shard.shardIndex).reduce((sum, s) => sum + s.clients, 0);
}

/** `total` split by `weights` with the largest-remainder method: whole numbers that add up to `total`. */
function shareByCores(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((acc, w) => acc + w, 0);
  if (weights.length === 0 || sum === 0) return weights.map(() => 0);
  const exact = weights.map((w) => (total * w) / sum);
  const shares = exact.map(Math.floor);
  let left = total - shares.reduce((acc, n) => acc + n, 0);
  const byRemainder = exact.map((value, i) => ({ i, rest: value - Math.floor(value) })).sort((a, b) => b.rest - a.rest);
  for (const { i } of byRemainder) {
    if (left === 0) break;
    shares[i] = (shares[i] ?? 0) + 1;
    left -= 1;
  }
  return shares;
}
