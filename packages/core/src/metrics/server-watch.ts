import {
  ServerPoint,
  summariseServerWatch,
  type RunServerSeries,
  type ServerSample,
} from "@throng/protocol/server-watch";
import { ServerWatchSnapshot } from "@throng/protocol/snapshot";
import type { Repos } from "@throng/db/repos";
import type { ServerSampleRow } from "@throng/db/repos/server-samples";
import type { Bus, Log } from "../ports";
import { publishLive } from "../runs/live";

/** A stored sample as the browser gets it, keyed by the same epoch second as the load's series. */
function toPoint(row: ServerSampleRow): ServerPoint {
  const sample = ServerWatchSnapshot.omit({ seq: true }).parse(row.sample);
  return ServerPoint.parse({ ...sample, t: row.second, seq: row.seq, agentId: row.agentId });
}

/** The run's watched seconds so far and their summary (CPU, RSS growth per minute, packets/s); shared by the API and the report. */
export async function serverSeriesOf(
  repos: Pick<Repos, "serverSamples">,
  orgId: string,
  runId: string,
): Promise<RunServerSeries> {
  const points = (await repos.serverSamples.listRun(orgId, runId)).map(toPoint);
  // With several watchers the summary is the first one's: each watches its own host, so their figures do not add up.
  const first = points[0]?.agentId;
  return { runId, points, summary: summariseServerWatch(points.filter((p) => p.agentId === first)) ?? null };
}

export type ServerSampleIngestResult = "stored" | "duplicate" | "unknown-run";

/**
 * Gateway: a watcher's per-second sample of the server under test (agent/PROTOCOL.md §11). Stored idempotently on
 * (run, agent, seq) and published live when new; a sample for a run this agent does not watch is not stored.
 */
export function createServerSampleIngest(deps: { repos: Repos; bus: Bus; log: Log }) {
  const { repos, bus } = deps;
  return {
    async ingest(orgId: string, agentId: string, sample: ServerSample): Promise<ServerSampleIngestResult> {
      const shard = await repos.runs.getShard(orgId, sample.runId, agentId);
      if (shard?.role !== "watch") return "unknown-run";
      const { runId, ...rest } = sample;
      const row = { agentId, seq: sample.seq, second: Math.floor(sample.intervalStart / 1000), sample: rest };
      if (!(await repos.serverSamples.insert(orgId, runId, row))) return "duplicate";
      await publishLive(bus, runId, { type: "server", point: toPoint(row) });
      return "stored";
    },
  };
}
export type ServerSampleIngest = ReturnType<typeof createServerSampleIngest>;
