import type { MetricSnapshot } from "@throng/protocol/snapshot";
import type { Repos } from "@throng/db/repos";
import type { Bus } from "../ports";
import { publishLive } from "../runs/live";
import { mergeSecond } from "./series";

export type IngestResult = "stored" | "duplicate" | "unknown-run";

/** Stores an agent's snapshot once, re-merges its second across agents into the roll-up and pushes it live. */
export function createIngestService(deps: { repos: Repos; bus: Bus }) {
  const { repos, bus } = deps;
  return {
    async ingest(orgId: string, agentId: string, snapshot: MetricSnapshot): Promise<IngestResult> {
      // The shard proves the run is this org's and this agent's: no agent writes into another org's run.
      const shard = await repos.runs.getShard(orgId, snapshot.runId, agentId);
      if (!shard) return "unknown-run";
      const second = Math.floor(snapshot.intervalStart / 1000);
      const stored = await repos.snapshots.insert(orgId, snapshot.runId, {
        agentId, seq: snapshot.seq, second, intervalMs: snapshot.intervalMs, clients: snapshot.clients,
        counters: snapshot.counters, rttHist: snapshot.histograms.rttUs, health: snapshot.health, step: snapshot.step ?? null,
        histograms: Object.fromEntries(Object.entries(snapshot.histograms).filter(([name, value]) => name !== "rttUs" && value)) as Record<string, string>,
      });
      if (!stored) return "duplicate";
      // One re-merge of a second at a time (across api instances): otherwise a merge that read fewer snapshots
      // can be written or published after one that read more, and the second ends short of an agent.
      await repos.snapshots.withSecondLocked(snapshot.runId, second, async (locked) => {
        const point = mergeSecond(second, await locked.listSecond(orgId, snapshot.runId, second));
        await locked.upsertSecond(orgId, snapshot.runId, second, point);
        await publishLive(bus, snapshot.runId, { type: "point", point });
      });
      return "stored";
    },
  };
}
export type IngestService = ReturnType<typeof createIngestService>;
