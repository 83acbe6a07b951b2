import type { MetricSnapshot, SeriesPoint } from "@throng/protocol/snapshot";
import type { AgentRecord } from "./agent-tap";

/** One agent's snapshots of one run as it sent them, in seq order, with the seqs it never sent. */
export function measured(
  record: AgentRecord,
  runId: string,
): { snapshots: MetricSnapshot[]; missingSeqs: number[]; lastSeq?: number } {
  const bySeq = record.snapshots.get(runId) ?? new Map<number, MetricSnapshot>();
  const seqs = [...bySeq.keys()].sort((a, b) => a - b);
  const lastSeq = record.statuses.get(runId)?.lastSeq;
  const missingSeqs: number[] = [];
  // A shard that started on time numbers its seconds 0, 1, 2 … up to the lastSeq its final status names.
  const last = Math.max(lastSeq ?? -1, seqs.at(-1) ?? -1);
  for (let seq = 0; seq <= last; seq++) if (!bySeq.has(seq)) missingSeqs.push(seq);
  return { snapshots: seqs.map((seq) => bySeq.get(seq)!), missingSeqs, ...(lastSeq !== undefined ? { lastSeq } : {}) };
}

/** The fields of a stored second that must follow exactly from what the agents sent (rates to 0.001). */
export interface SecondFacts {
  t: number;
  agents: string[];
  clients: number;
  connections: number;
  messagesSentPerSec: number;
  messagesReceivedPerSec: number;
  errors: number;
  cpuByAgent: Record<string, number>;
}

const round = (value: number) => Math.round(value * 1000) / 1000;

/** What the series should say, second by second, given every agent's snapshots (agentId → snapshots). */
export function expectedSeries(byAgent: Map<string, MetricSnapshot[]>): SecondFacts[] {
  const seconds = new Map<number, { agentId: string; snapshot: MetricSnapshot }[]>();
  for (const [agentId, snapshots] of byAgent) {
    for (const snapshot of snapshots) {
      const t = Math.floor(snapshot.intervalStart / 1000);
      seconds.set(t, [...(seconds.get(t) ?? []), { agentId, snapshot }]);
    }
  }
  return [...seconds.entries()]
    .sort(([a], [b]) => a - b)
    .map(([t, rows]) => {
      const rate = (pick: (s: MetricSnapshot) => number) =>
        rows.reduce((sum, { snapshot }) => sum + (pick(snapshot) * 1000) / Math.max(snapshot.intervalMs, 1000), 0);
      return {
        t,
        agents: rows.map((r) => r.agentId).sort(),
        clients: rows.reduce((sum, r) => sum + r.snapshot.clients, 0),
        connections: rows.reduce((sum, r) => sum + r.snapshot.counters.connectionsOpen, 0),
        messagesSentPerSec: round(rate((s) => s.counters.messagesSent)),
        messagesReceivedPerSec: round(rate((s) => s.counters.messagesReceived)),
        errors: rows.reduce((sum, r) => sum + r.snapshot.counters.errors + r.snapshot.counters.connectionsFailed, 0),
        cpuByAgent: Object.fromEntries(rows.map((r) => [r.agentId, r.snapshot.health.cpuPercent])),
      };
    });
}

/** The same facts read from the stored series (GET /series or the live stream). */
export function storedFacts(points: SeriesPoint[]): SecondFacts[] {
  return [...points]
    .sort((a, b) => a.t - b.t)
    .map((p) => ({
      t: p.t,
      agents: (p.agentHealth ?? []).map((h) => h.agentId).sort(),
      clients: p.clients,
      connections: p.connections,
      messagesSentPerSec: round(p.messagesSentPerSec),
      messagesReceivedPerSec: round(p.messagesReceivedPerSec),
      errors: p.errors,
      cpuByAgent: Object.fromEntries((p.agentHealth ?? []).map((h) => [h.agentId, h.cpuPercent])),
    }));
}

/** Seconds between the first and last that no agent reported: a hole in the chart. */
export function holes(facts: SecondFacts[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < facts.length; i++) for (let t = facts[i - 1]!.t + 1; t < facts[i]!.t; t++) out.push(t);
  return out;
}
