import type { Scenario } from "@throng/protocol/plan";

/** An agent that can take load, with the cores that size its share. */
export interface ShardCandidate {
  agentId: string;
  cores: number;
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
 * Splits `clients` across agents in proportion to their cores (largest remainder), so every client is
 * placed exactly once; agents that would get none are left out. With `unit` (a room's size) whole units are
 * split, so a room never spans agents and one clock measures its broadcasts. The partial room rides with the
 * last shard: every shard then starts on a room boundary, so a script's ctx.room (its client index over the
 * whole run / roomSize) names rooms that live on one agent.
 */
export function splitClients(clients: number, agents: readonly ShardCandidate[], unit = 1): ShardPlan[] {
  if (unit > 1 && clients < unit) return splitClients(clients, agents.slice(0, 1)); // one partial room
  if (unit > 1) {
    const units = splitClients(Math.floor(clients / unit), agents);
    const rest = clients - Math.floor(clients / unit) * unit;
    return units.map((s, i) => ({ ...s, clients: s.clients * unit + (i === units.length - 1 ? rest : 0) }));
  }
  const totalCores = agents.reduce((acc, a) => acc + Math.max(1, a.cores), 0);
  if (agents.length === 0 || clients <= 0) return [];
  const exact = agents.map((a) => (clients * Math.max(1, a.cores)) / totalCores);
  const shares = exact.map(Math.floor);
  let left = clients - shares.reduce((acc, n) => acc + n, 0);
  const byRemainder = exact.map((value, i) => ({ i, rest: value - Math.floor(value) })).sort((a, b) => b.rest - a.rest);
  for (const { i } of byRemainder) {
    if (left === 0) break;
    shares[i] = (shares[i] ?? 0) + 1;
    left -= 1;
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
export function clientsBefore(shards: readonly { shardIndex: number; clients: number }[], shard: { shardIndex: number }): number {
  return shards.filter((s) => s.shardIndex < shard.shardIndex).reduce((sum, s) => sum + s.clients, 0);
}
