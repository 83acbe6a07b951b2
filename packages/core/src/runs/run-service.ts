import { ThrongError } from "@throng/protocol/errors";
import { Channel } from "@throng/protocol/jobs";
import type { LiveMessage, RunSeries, RunView } from "@throng/protocol/run";
import type { Repos } from "@throng/db/repos";
import type { FleetService } from "../fleet/fleet-service";
import { buildSeries } from "../metrics/series";
import type { Bus, Jobs } from "../ports";
import { toRunView } from "./run-view";

/** What the API does with runs: create one from a plan, read it, read its series. */
export function createRunService(deps: { repos: Repos; fleet: FleetService; jobs: Jobs; bus: Bus }) {
  const { repos, fleet, jobs, bus } = deps;

  async function get(orgId: string, runId: string): Promise<RunView> {
    const row = await repos.runs.get(orgId, runId);
    if (!row) throw new ThrongError("not_found", `No run ${runId} in this organisation`);
    return toRunView(row);
  }

  return {
    get,

    async list(orgId: string): Promise<RunView[]> {
      return (await repos.runs.list(orgId)).map(toRunView);
    },

    /** Stores a queued run with the exact plan it uses and hands it to the workers. */
    async create(orgId: string, planId: string): Promise<RunView> {
      const plan = await repos.plans.get(orgId, planId);
      if (!plan) throw new ThrongError("not_found", `No plan ${planId} in this organisation`);
      const online = (await fleet.listAgents(orgId)).filter((a) => a.status === "online");
      if (online.length === 0) {
        throw new ThrongError("no_agent_online", "No agent is online and idle: start one from the Agents page, then run again");
      }
      const runId = crypto.randomUUID();
      await repos.runs.insert(orgId, { id: runId, planId, spec: plan.spec, status: "queued" });
      await jobs.startRun({ orgId, runId });
      return get(orgId, runId);
    },

    async series(orgId: string, runId: string): Promise<RunSeries> {
      await get(orgId, runId);
      return { runId, points: buildSeries(await repos.snapshots.listRun(orgId, runId)) };
    },

    /** Tells every browser watching the run (through any API instance) about its new state. */
    async publishRun(orgId: string, runId: string): Promise<void> {
      const message: LiveMessage = { type: "run", run: await get(orgId, runId) };
      await bus.publish(Channel.run(runId), message);
    },
  };
}
export type RunService = ReturnType<typeof createRunService>;
