import type { MetricSnapshot } from "@throng/protocol/snapshot";
import type { Repos } from "@throng/db/repos";
import type { Bus, Log } from "../ports";
import { publishLive } from "../runs/live";
import { mergeSecond } from "./series";

export type IngestResult = "stored" | "duplicate" | "unknown-run";

interface PendingMerge {
  running: boolean;
  /** A snapshot arrived while the merge was running: merge again once it is done. */
  again: boolean;
}

/**
 * Stores an agent's snapshot once, then re-merges its second across agents into the roll-up and pushes it
 * live. With `coalesceMs` > 0 the re-merges of one second are coalesced: n agents' snapshots arriving within
 * the window cost one merge instead of n (each of which decodes every histogram of the second so far, so
 * n agents would otherwise cost n²/2 decodes a second). The stored snapshot is the truth: `finish-run`
 * rebuilds every second from them, so a merge lost with a crashed process costs nothing but a late point.
 */
export function createIngestService(deps: { repos: Repos; bus: Bus; log?: Log; coalesceMs?: number }) {
  const { repos, bus } = deps;
  const coalesceMs = deps.coalesceMs ?? 0;
  const pending = new Map<string, PendingMerge>();
  const inFlight = new Set<Promise<void>>();

  // One re-merge of a second at a time (across api instances): otherwise a merge that read fewer snapshots
  // can be written or published after one that read more, and the second ends short of an agent.
  async function merge(orgId: string, runId: string, second: number) {
    await repos.snapshots.withSecondLocked(runId, second, async (locked) => {
      const point = mergeSecond(second, await locked.listSecond(orgId, runId, second));
      await locked.upsertSecond(orgId, runId, second, point);
      await publishLive(bus, runId, { type: "point", point });
    });
  }

  function schedule(orgId: string, runId: string, second: number) {
    const key = `${runId}:${second}`;
    const existing = pending.get(key);
    if (existing) {
      if (existing.running) existing.again = true; // a waiting merge will read this snapshot anyway
      return;
    }
    const entry: PendingMerge = { running: false, again: false };
    pending.set(key, entry);
    const run = async () => {
      entry.running = true;
      entry.again = false;
      try {
        await merge(orgId, runId, second);
      } catch (err) {
        deps.log?.error({ err, runId, second }, "re-merging a second failed; finish-run rebuilds it");
      }
      entry.running = false;
      if (entry.again) return later();
      pending.delete(key);
    };
    const later = () => {
      const done = new Promise<void>((resolve) => setTimeout(() => void run().finally(resolve), coalesceMs));
      inFlight.add(done);
      void done.finally(() => inFlight.delete(done));
    };
    later();
  }

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
      if (coalesceMs > 0) schedule(orgId, snapshot.runId, second);
      else await merge(orgId, snapshot.runId, second);
      return "stored";
    },

    /** Waits for every coalesced merge still waiting or running (tests; a clean shutdown). */
    async flush(): Promise<void> {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
export type IngestService = ReturnType<typeof createIngestService>;
