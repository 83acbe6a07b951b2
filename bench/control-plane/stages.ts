import type { PointStages } from "@throng/core/metrics/ingest-stages";

/** Where one snapshot was on its way from agent to browser, as times since its agent sent it (ms). */
export const STAGES = [
  "received",
  "batched",
  "committed",
  "merge start",
  "slot",
  "locked",
  "built",
  "published",
  "upserted",
  "browser",
] as const;
export type Stage = (typeof STAGES)[number];

/** One step's stage figures: p50 and p99 of each stage's time since send, over the snapshots the api traced. */
export interface StageBreakdown {
  agents: number;
  traced: number;
  /** Traced snapshots that a live point carried before their batch committed (their commit is off the live path). */
  liveBeforeCommit: number;
  p50: Record<Stage, number>;
  p99: Record<Stage, number>;
}

/** null: the point carried the snapshot before its batch was sent or committed. */
type ApiTimes = Omit<Record<Stage, number | null>, "browser">;

/**
 * Reads the api's debug lines ("live point stages", one per live point) and keeps, for every agent's second,
 * the times of the first point that carried it. `line` goes to the api child's output.
 */
export function collectStages() {
  const bySnapshot = new Map<string, ApiTimes>(); // `${runId}:${agentId}:${second}`
  const merges = { points: 0, readRows: 0 };
  return {
    /** Live points published, and snapshots their merges read back from storage (stored but not yet added). */
    merges,
    line(text: string): void {
      if (!text.includes('"live point stages"')) return;
      const { stages } = JSON.parse(text) as { stages: PointStages };
      merges.points += 1;
      merges.readRows += stages.readRows;
      for (const [agentId, receivedAt, batchedAt, committedAt] of stages.snapshots) {
        bySnapshot.set(`${stages.runId}:${agentId}:${stages.second}`, {
          received: receivedAt,
          batched: batchedAt,
          committed: committedAt,
          "merge start": stages.startedAt,
          slot: stages.slotAt,
          locked: stages.lockedAt,
          built: stages.builtAt,
          upserted: stages.upsertedAt,
          published: stages.publishedAt,
        });
      }
    },
    /** The api's times of `agentId`'s second `second` in run `runId`, if a point carried it. */
    of: (runId: string, agentId: string, second: number): ApiTimes | undefined =>
      bySnapshot.get(`${runId}:${agentId}:${second}`),
  };
}
export type StageCollector = ReturnType<typeof collectStages>;

/**
 * p50/p99 per stage of `samples` (each a snapshot's stage times since its send; NaN where the point carried it before
 * that stage: batched and committed are then over the snapshots that got there first).
 */
export function stageBreakdown(agents: number, samples: Record<Stage, number>[]): StageBreakdown {
  const at = (stage: Stage, p: number) => {
    const sorted = samples
      .map((sample) => sample[stage])
      .filter(Number.isFinite)
      .sort((a, b) => a - b);
    return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;
  };
  return {
    agents,
    traced: samples.length,
    liveBeforeCommit: samples.filter((sample) => !Number.isFinite(sample.committed)).length,
    p50: Object.fromEntries(STAGES.map((stage) => [stage, at(stage, 50)])) as Record<Stage, number>,
    p99: Object.fromEntries(STAGES.map((stage) => [stage, at(stage, 99)])) as Record<Stage, number>,
  };
}

export function stageTable(rows: StageBreakdown[]): string {
  const header = ["agents", "traced", "live before commit", ...STAGES.map((stage) => `${stage} p50/p99 ms`)];
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [
    line(header),
    line(header.map(() => "---")),
    ...rows.map((r) =>
      line([
        String(r.agents),
        String(r.traced),
        `${((100 * r.liveBeforeCommit) / Math.max(r.traced, 1)).toFixed(0)}%`,
        ...STAGES.map((stage) => `${r.p50[stage].toFixed(0)} / ${r.p99[stage].toFixed(0)}`),
      ]),
    ),
  ].join("\n");
}
