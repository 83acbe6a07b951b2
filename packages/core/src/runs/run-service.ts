import { ThrongError } from "@throng/protocol/errors";
import { SeriesPoint } from "@throng/protocol/snapshot";
import type { RunSeries, RunView } from "@throng/protocol/run";
import type { RunPage, RunsQuery } from "@throng/protocol/run-list";
import { distinctTags, type RunNotesPatch } from "@throng/protocol/run-notes";
import type { RunServerSeries } from "@throng/protocol/server-watch";
import type { Repos } from "@throng/db/repos";
import type { FleetService } from "../fleet/fleet-service";
import type { Jobs } from "../ports";
import { OrgSettings } from "@throng/protocol/orgs";
import { assertPlanSecretsExist } from "../orgs/org-secrets";
import { authorize, type Actor } from "../orgs/permissions";
import { checkPlanAgainstSettings } from "../orgs/target-policy";
import { placeRun } from "./agent-selection";
import { toRunView } from "./run-view";
import { serverSeriesOf } from "../metrics/server-watch";
import { errorSamplesOf } from "../metrics/error-samples";
import { roomsOf } from "../metrics/rooms";
import { NO_ROOMS, type RunRooms } from "@throng/protocol/rooms";
import type { RunErrorSamples } from "@throng/protocol/error-samples";
import { printedDistributions, runDistribution } from "../metrics/latency-distribution";
import type { DistributionQuery, LatencyDistribution } from "@throng/protocol/latency-distribution";
import { assertPlanCodecs } from "../plans/plan-codecs";
import { assertPlanScriptStored } from "../scripts/plan-scripts";
import type { ScriptService } from "../scripts/script-service";

/** What the API does with runs: create one from a plan, read it, read its series. */
export function createRunService(deps: {
  repos: Repos;
  fleet: FleetService;
  jobs: Jobs;
  scripts: Pick<ScriptService, "stored">;
}) {
  const { repos, fleet, jobs, scripts } = deps;

  async function get(actor: Actor, runId: string): Promise<RunView> {
    authorize(actor, "run.read");
    const { orgId } = actor;
    const row = await repos.runs.get(orgId, runId);
    if (!row) throw new ThrongError("not_found", `No run ${runId} in this organisation`);
    return toRunView(row, await repos.runs.listEvents(orgId, runId));
  }

  return {
    get,

    /** One page of the organisation's runs matching the query, newest first (GET /api/runs). */
    async list(actor: Actor, query: RunsQuery): Promise<RunPage> {
      authorize(actor, "run.read");
      const filter = {
        ...(query.status && { status: query.status }),
        ...(query.outcome && { outcome: query.outcome }),
        ...(query.plan && { planId: query.plan }),
        ...(query.createdFrom && { createdFrom: new Date(query.createdFrom) }),
        ...(query.createdBefore && { createdBefore: new Date(query.createdBefore) }),
        ...(query.tag && { tag: query.tag }),
      };
      const { rows, matching } = await repos.runs.listPage(
        actor.orgId,
        filter,
        query.limit,
        (query.page - 1) * query.limit,
      );
      return {
        runs: rows.map((row) => toRunView(row)),
        matching,
        page: query.page,
        pages: Math.max(1, Math.ceil(matching / query.limit)),
        limit: query.limit,
      };
    },

    /** Stores a queued run with the exact plan it uses and hands it to the workers, which start it once its agents are free. */
    async create(actor: Actor, planId: string): Promise<RunView> {
      authorize(actor, "run.start");
      const { orgId } = actor;
      const plan = await repos.plans.get(orgId, planId);
      if (!plan) throw new ThrongError("not_found", `No plan ${planId} in this organisation`);
      const spec = plan.spec;
      checkPlanAgainstSettings(spec, OrgSettings.parse((await repos.orgs.getSettings(orgId)) ?? {}));
      // A plan saved before its codecs were checked at save time is refused here, not on the rig.
      assertPlanCodecs(spec);
      // A plan saved before scripts were checked at save time still cannot start one its agents could not fetch.
      await assertPlanScriptStored(spec, (sha256) => scripts.stored(orgId, sha256));
      // A secret deleted since the plan was saved: refused now, naming it, rather than failing on the agents.
      await assertPlanSecretsExist(repos.secrets, orgId, spec, "start");
      // Refused only when no agent that matches is connected; busy ones mean the run waits in the queue.
      const placement = placeRun(await fleet.listAgents(orgId), spec);
      if (placement.kind === "none") throw new ThrongError("no_agent_online", placement.reason);
      const runId = crypto.randomUUID();
      await repos.runs.insert(orgId, {
        id: runId,
        planId,
        planVersion: plan.version,
        spec: plan.spec,
        status: "queued",
        startedBy: actor.label,
      });
      if (placement.kind === "busy")
        await repos.runs.insertEvent(orgId, runId, { kind: "queued", agentId: null, message: placement.reason });
      await jobs.startRun({ orgId, runId });
      return get(actor, runId);
    },

    /** Sets a run's note and/or tags (PATCH /api/runs/:id), at any point of its life; answers the run as it is now. */
    async annotate(actor: Actor, runId: string, patch: RunNotesPatch): Promise<RunView> {
      authorize(actor, "run.annotate");
      const tags = patch.tags && distinctTags(patch.tags);
      const updated = await repos.runs.updateNotes(actor.orgId, runId, {
        ...(patch.note !== undefined && { note: patch.note }),
        ...(tags && { tags }),
        editedBy: actor.label,
      });
      if (!updated) throw new ThrongError("not_found", `No run ${runId} in this organisation`);
      return get(actor, runId);
    },

    /** Every merged second so far, from the per-second roll-up. */
    async series(actor: Actor, runId: string): Promise<RunSeries> {
      await get(actor, runId);
      const points = (await repos.snapshots.listSeries(actor.orgId, runId)).map((p) => SeriesPoint.parse(p));
      return { runId, points };
    },

    /** The first distinct samples of each error kind (agent/PROTOCOL.md §5.2), with their time since the run's start. */
    async errorSamples(actor: Actor, runId: string): Promise<RunErrorSamples> {
      const run = await get(actor, runId);
      return errorSamplesOf(repos, actor.orgId, runId, run.startedAt);
    },

    /** movement-sync: the worst rooms across the run's agents and the spread over all (agent/PROTOCOL.md §5.3). */
    async rooms(actor: Actor, runId: string): Promise<RunRooms> {
      await get(actor, runId);
      return (await roomsOf(repos, actor.orgId, runId)) ?? NO_ROOMS;
    },

    /**
     * A latency metric's distribution and heatmap over the range asked for, or the whole run, from the stored
     * per-second histograms merged (GET /api/runs/:id/distribution). The route's schema parsed the query, once.
     */
    async distribution(actor: Actor, runId: string, query: DistributionQuery): Promise<LatencyDistribution> {
      return runDistribution(repos, actor.orgId, await get(actor, runId), query);
    },

    /** What a printed report draws: each latency the run measured, over the whole run (at most four). */
    async reportDistributions(
      actor: Actor,
      run: Pick<RunView, "id" | "startedAt" | "summary">,
    ): Promise<{ name: string; distribution: LatencyDistribution }[]> {
      authorize(actor, "run.read");
      return printedDistributions(repos, actor.orgId, run);
    },

    /** The server under test, as the plan's watchers sampled it, second by second, with its summary. */
    async serverSeries(actor: Actor, runId: string): Promise<RunServerSeries> {
      await get(actor, runId);
      return serverSeriesOf(repos, actor.orgId, runId);
    },
  };
}
export type RunService = ReturnType<typeof createRunService>;
