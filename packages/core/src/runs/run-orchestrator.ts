import { RunStatus } from "@throng/protocol/run";
import { ThrongError } from "@throng/protocol/errors";
import { Channel } from "@throng/protocol/jobs";
import type { RunAssignment, ServerToAgentMessage, ShardStatus } from "@throng/protocol/agent";
import type { Repos } from "@throng/db/repos";
import type { RunPatch, RunRow, ShardRow } from "@throng/db/repos/runs";
import type { FleetService } from "../fleet/fleet-service";
import type { Bus, Clock, Jobs, Log } from "../ports";
import { placeRun, shardCandidates, type Placement } from "./agent-selection";
import { publishLive } from "./live";
import { isTerminal, nextRunStatus, type RunEvent } from "./run-state";
import { toRunView } from "./run-view";
import { clientsBefore, roomUnit, splitClients } from "./shards";
import { createRunJudgement, DONE_SHARD_STATES } from "./run-judgement";
import type { AuditLog } from "../orgs/audit";
import { authorize, type Actor } from "../orgs/permissions";
import { assertPlanSecretsExist } from "../orgs/org-secrets";
import { createCapacitySearchRunner, DEFAULT_SEARCH_TIMING, type SearchTiming } from "./capacity-search-runner";

export interface OrchestratorConfig {
  /** Time between assignment and the synchronised start, so every agent has it in hand. */
  startDelayMs: number;
  /** How long after the planned end a run waits for its agents' last snapshots. */
  finishGraceMs: number;
  /** How long a disconnected agent has to come back before it counts as lost. */
  agentLostGraceMs: number;
  /** An automatic capacity search's waits for each step's last seconds (default DEFAULT_SEARCH_TIMING). */
  search?: SearchTiming;
  /** How often a queued run looks again for free agents besides when a run ends (an agent may join meanwhile). */
  queueRecheckMs?: number;
}

/** Two seconds to deliver assignments; fifteen for last snapshots; ten for a dropped agent to return. */
export const DEFAULT_ORCHESTRATION: OrchestratorConfig = { startDelayMs: 2000, finishGraceMs: 15_000, agentLostGraceMs: 10_000 };

/** A queued run looks for free agents every five seconds, besides at once when another run of its org ends. */
const DEFAULT_QUEUE_RECHECK_MS = 5000;


const LIVE_RUN_STATUSES = ["running", "degraded"];

/** Drives runs through their lifecycle; every entry point is idempotent because a job may run twice. */
export function createRunOrchestrator(deps: {
  repos: Repos; fleet: FleetService; jobs: Jobs; bus: Bus; clock: Clock; log: Log; config: OrchestratorConfig;
  /** Where a user's abort is recorded (the api's part). */
  audit?: Pick<AuditLog, "record">;
  /** Told once a run has ended, however it ended (the workers send notifications); may be told twice for one run. */
  onRunEnded?: (orgId: string, runId: string) => Promise<void>;
}) {
  const { repos, fleet, jobs, bus, clock, log, config } = deps;
  const now = () => new Date(clock.now());

  async function publishRun(orgId: string, runId: string) {
    const row = await repos.runs.get(orgId, runId);
    if (row) await publishLive(bus, runId, { type: "run", run: toRunView(row, await repos.runs.listEvents(orgId, runId)) });
  }

  /** Applies a lifecycle event with compare-and-set; false when it does not apply or another worker won. */
  async function transition(run: RunRow, event: RunEvent, patch: RunPatch = {}) {
    const next = nextRunStatus(RunStatus.parse(run.status), event);
    if (!next) return false;
    // started_at holds the planned start from the moment a run is set going; a run that ends before it (refused by
    // its agents at once, aborted in its first two seconds) never started, and must not read "started 12:18:25 · ended 12:18:23".
    // A run that finished measured its seconds, so it started (its agents' clocks may run ahead of this one's).
    const neverStarted = next !== "finished" && patch.endedAt && run.startedAt && patch.endedAt < run.startedAt ? { startedAt: null } : {};
    const changed = await repos.runs.update(run.orgId, run.id, run.status, { ...patch, ...neverStarted, status: next });
    if (changed) {
      log.info({ runId: run.id, from: run.status, to: next }, "run status changed");
      await publishRun(run.orgId, run.id);
    }
    return changed;
  }

  /** `clientsBefore`: the clients of the shards before this one, so the shards split every level exactly. */
  function assignmentOf(run: RunRow, shard: ShardRow, shards: { count: number; clientsBefore: number }, searchStep?: RunAssignment["searchStep"]): RunAssignment {
    return {
      runId: run.id, shardIndex: shard.shardIndex, shardCount: shards.count, clients: shard.clients, clientsBefore: shards.clientsBefore,
      plan: run.spec, startAt: run.startAt?.getTime() ?? clock.now(), ...(searchStep ? { searchStep } : {}),
      ...(shard.role === "watch" ? { role: "watch" as const } : {}),
    };
  }

  const sendToAgent = (agentId: string, message: ServerToAgentMessage) => bus.publish(Channel.agent(agentId), message);
  const search = createCapacitySearchRunner({
    repos, jobs, clock, log, timing: config.search ?? DEFAULT_SEARCH_TIMING, send: sendToAgent, stopShards: (orgId, runId, reason) => stopShards(orgId, runId, reason),
  });

  const judgement = createRunJudgement({ repos, fleet, bus, clock, log, publishRun });
  const { judge, eventProblems } = judgement;

  async function stopShards(orgId: string, runId: string, reason: string) {
    for (const shard of await repos.runs.listShards(orgId, runId)) {
      if (!DONE_SHARD_STATES.includes(shard.state)) await sendToAgent(shard.agentId, { type: "run-stop", payload: { runId, reason } });
    }
  }

  async function closeIfAllShardsDone(orgId: string, runId: string) {
    // A count, not the list: every agent of a big fleet reports its end, and reading n shards n times is n².
    if ((await repos.runs.countShards(orgId, runId, DONE_SHARD_STATES)).notIn === 0) await jobs.finishRun({ orgId, runId }, 0, "all-shards-done");
  }

  /** Says once per reason why a queued run waits, and looks again later. */
  async function keepQueued(run: RunRow, reason: string) {
    const events = await repos.runs.listEvents(run.orgId, run.id);
    if (events.filter((e) => e.kind === "queued").at(-1)?.message !== reason) {
      await repos.runs.insertEvent(run.orgId, run.id, { kind: "queued", agentId: null, message: reason });
      await publishRun(run.orgId, run.id);
    }
    await jobs.startRun({ orgId: run.orgId, runId: run.id }, config.queueRecheckMs ?? DEFAULT_QUEUE_RECHECK_MS);
  }

  /** The shards of a placed run (load split by cores, then one per watcher); false when the load cannot be split. */
  async function storeShards(run: RunRow, placement: Extract<Placement, { kind: "ready" }>): Promise<boolean> {
    const spec = run.spec;
    const unit = roomUnit(spec.scenario);
    const plan = splitClients(spec.load.clients, shardCandidates(placement.agents, unit), unit);
    if (plan.length === 0) return false;
    const watchShards = placement.watchers.map((w, i) => ({ agentId: w.id, shardIndex: plan.length + i, clients: 0, role: "watch" }));
    await repos.runs.insertShards(run.orgId, run.id, [...plan, ...watchShards]);
    return true;
  }

  /** Why the run's plan cannot start for want of a secret, or null when the organisation has every one it uses. */
  async function missingSecrets(run: RunRow): Promise<string | null> {
    try {
      await assertPlanSecretsExist(repos.secrets, run.orgId, run.spec, "start");
      return null;
    } catch (error) {
      if (error instanceof ThrongError) return error.message;
      throw error;
    }
  }

  /**
   * A queued run takes its agents, under the org's start lock so two queued runs never take the same free one:
   * placed (preparing, shards stored), still waiting (agents busy), or failed (no agent that matches is connected).
   * A run left preparing without shards (a worker stopped between the two writes) is placed again.
   */
  async function takeAgents(orgId: string, runId: string): Promise<void> {
    await repos.runs.withStartLock(orgId, async () => {
      let run = await repos.runs.get(orgId, runId);
      if (run?.status !== "queued" && run?.status !== "preparing") return;
      if (run.status === "preparing" && (await repos.runs.listShards(orgId, runId)).length > 0) return;
      // A secret deleted while the run waited in the queue: the run fails naming it, before any agent is given it.
      const secretsMissing = await missingSecrets(run);
      if (secretsMissing) return void (await transition(run, "fail", { error: secretsMissing, endedAt: now() }));
      const placement = placeRun(await fleet.listAgents(orgId), run.spec);
      if (placement.kind === "busy" && run.status === "queued") return keepQueued(run, placement.reason);
      if (placement.kind !== "ready") return void (await transition(run, "fail", { error: placement.reason, endedAt: now() }));
      if (run.status === "queued") {
        if (!(await transition(run, "prepare"))) return;
        run = { ...run, status: "preparing" };
      }
      if (!(await storeShards(run, placement))) await transition(run, "fail", { error: "The load cannot be split across the agents", endedAt: now() });
    });
  }

  /** Picks agents, stores shards, sets one start time, and sends each agent its share; waits queued while they are busy. */
  async function start(orgId: string, runId: string): Promise<void> {
    await takeAgents(orgId, runId);
    let run = await repos.runs.get(orgId, runId);
    if (run?.status === "failed") return announceEnd(orgId, runId);
    if (run?.status !== "preparing") return; // still queued, failed, or already started by an earlier attempt
    const spec = run.spec;
    const shards = await repos.runs.listShards(orgId, runId);
    const startAt = clock.now() + config.startDelayMs;
    if (!(await transition(run, "start", { startAt: new Date(startAt), startedAt: new Date(startAt) }))) return;
    run = (await repos.runs.get(orgId, runId))!;
    await search.begin(run);
    for (const shard of shards) {
      await sendToAgent(shard.agentId, { type: "run-assignment", payload: assignmentOf(run, shard, { count: shards.length, clientsBefore: clientsBefore(shards, shard) }) });
    }
    const endsIn = startAt + spec.load.durationSec * 1000 + config.finishGraceMs - clock.now();
    await jobs.finishRun({ orgId, runId }, Math.max(0, endsIn), "planned-end");
  }

  async function announceEnd(orgId: string, runId: string) {
    const run = await repos.runs.get(orgId, runId);
    if (run && isTerminal(RunStatus.parse(run.status))) await deps.onRunEnded?.(orgId, runId);
  }

  /** Closes a run, then its org's queued runs take the agents it freed, oldest first. */
  async function finish(orgId: string, runId: string): Promise<void> {
    await closeRun(orgId, runId);
    await announceEnd(orgId, runId);
    for (const queuedId of await repos.runs.listQueuedIds(orgId)) await start(orgId, queuedId);
  }

  /** Closes a run with its summary; agents that never reported are told to stop and named in the error. */
  async function closeRun(orgId: string, runId: string): Promise<void> {
    const run = await repos.runs.get(orgId, runId);
    if (!run) return;
    const snapshots = await repos.snapshots.listRun(orgId, runId);
    await judgement.rebuildRollup(orgId, runId, snapshots);
    if (run.status === "aborted") {
      // Agents send their last snapshots after an abort: fold them into the summary once they are in. Seconds due
      // before the abort that never arrived are named too: an aborted run's report must not hide a dead agent.
      const problems = await judgement.closedProblems(run, await repos.runs.listShards(orgId, runId), snapshots);
      const judged = await judge(run, snapshots, "aborted", problems);
      await repos.runs.update(orgId, runId, "aborted", { ...judged, judgedSnapshots: snapshots.length });
      await publishRun(orgId, runId);
      return judgeAgainIfLate(orgId, runId, snapshots.length);
    }
    if (isTerminal(RunStatus.parse(run.status))) return;
    const shards = await repos.runs.listShards(orgId, runId);
    await stopShards(orgId, runId, "run ended");
    const problems = await judgement.shardProblems(run.orgId, shards);
    const verdictProblems = await judgement.closedProblems(run, shards, snapshots);
    const patch = { ...(await judge(run, snapshots, snapshots.length === 0 ? "failed" : "finished", verdictProblems)), endedAt: now(), judgedSnapshots: snapshots.length };
    if (snapshots.length === 0) await transition(run, "fail", { ...patch, error: problems.join("; ") || "No agent sent any measurement" });
    else await transition(run, "finish", { ...patch, error: problems.length ? problems.join("; ") : null });
    await judgeAgainIfLate(orgId, runId, snapshots.length);
  }

  /**
   * A snapshot stored while the run was being judged is in neither the judgement nor (ingest checked before the
   * close) a judgement again: counted after the close, so one of the two always sees it (ingest checks after its
   * commit whether the run has closed).
   */
  async function judgeAgainIfLate(orgId: string, runId: string, judged: number) {
    if ((await repos.snapshots.countRun(orgId, runId)) > judged) await jobs.rejudgeRun({ orgId, runId });
  }

  /** A user stops a run: every agent is told at once; the summary is refreshed when their last snapshots are in. */
  async function abort(orgId: string, runId: string, by: string): Promise<void> {
    const run = await repos.runs.get(orgId, runId);
    if (!run) throw new ThrongError("not_found", `No run ${runId} in this organisation`);
    if (isTerminal(RunStatus.parse(run.status))) throw new ThrongError("conflict", `Run ${runId} has already ${run.status === "aborted" ? "been aborted" : run.status}`);
    await repos.runs.insertEvent(orgId, runId, { kind: "aborted", agentId: null, message: `aborted by ${by}` });
    await stopShards(orgId, runId, `aborted by ${by}`);
    const snapshots = await repos.snapshots.listRun(orgId, runId);
    if (!(await transition(run, "abort", { endedAt: now(), ...(await judge(run, snapshots, "aborted", await eventProblems(orgId, runId))) }))) {
      throw new ThrongError("conflict", `Run ${runId} changed state meanwhile; reload and try again`);
    }
    await jobs.finishRun({ orgId, runId }, 5_000, "after-abort");
  }

  return {
    start,
    finish,
    /** A user (or token) aborts a run. */
    async abortRun(actor: Actor, runId: string): Promise<void> {
      authorize(actor, "run.abort");
      await abort(actor.orgId, runId, actor.name ?? actor.label);
      const run = await repos.runs.get(actor.orgId, runId);
      await deps.audit?.record(actor.orgId, actor.label, "run.aborted", runId, { name: run?.planName ?? null });
    },

    /** Worker, after seconds (or an agent's end of shard) reached a run that had closed: judge it again (run-judgement.ts). */
    judgeAgain: judgement.judgeAgain,

    /** Worker, after an automatic capacity search's step: judge it and send the next level (capacity-search-runner.ts). */
    searchStep: search.decide,

    /** Gateway: an agent reported a shard's state; when every shard is done, the run closes now. */
    async shardStatus(orgId: string, agentId: string, status: ShardStatus): Promise<void> {
      const shard = await repos.runs.getShard(orgId, status.runId, agentId);
      if (!shard || shard.state === "lost") return;
      if (status.state === "started") {
        if (shard.state === "assigned") await repos.runs.updateShard(orgId, status.runId, agentId, { state: "started" });
        return;
      }
      await repos.runs.updateShard(orgId, status.runId, agentId, {
        state: status.state, lastSeq: status.lastSeq ?? null, error: status.error ?? null,
      });
      // The end of a shard after the run closed (its agent cut off until then): the verdict's problems change. An
      // aborted run's close follows its agents' ends, as before.
      const run = await repos.runs.get(orgId, status.runId);
      if (run && run.status !== "aborted" && isTerminal(RunStatus.parse(run.status))) return jobs.rejudgeRun({ orgId, runId: status.runId });
      await closeIfAllShardsDone(orgId, status.runId);
    },

    /** Gateway, after every hello: the shards this agent should be running, so a reconnect resumes them. */
    async activeAssignments(orgId: string, agentId: string): Promise<RunAssignment[]> {
      const assignments: RunAssignment[] = [];
      for (const shard of await repos.runs.activeShardsForAgent(orgId, agentId)) {
        const run = await repos.runs.get(orgId, shard.runId);
        if (!run || !LIVE_RUN_STATUSES.includes(run.status)) continue;
        const { total, clientsBefore } = await repos.runs.countShards(orgId, shard.runId, [], shard.shardIndex);
        assignments.push(assignmentOf(run, shard, { count: total, clientsBefore }, await search.currentLevel(run)));
      }
      return assignments;
    },

    /** Gateway: an agent holding shards disconnected; give it the grace period to come back. */
    async agentDisconnected(orgId: string, agentId: string): Promise<void> {
      for (const shard of await repos.runs.activeShardsForAgent(orgId, agentId)) {
        await jobs.checkAgent({ orgId, runId: shard.runId, agentId }, config.agentLostGraceMs);
      }
    },

    /** Worker, after the grace period: still gone means lost; the plan says whether the run goes on degraded. */
    async checkAgent(orgId: string, runId: string, agentId: string): Promise<void> {
      const run = await repos.runs.get(orgId, runId);
      const shard = await repos.runs.getShard(orgId, runId, agentId);
      if (!run || !shard || !LIVE_RUN_STATUSES.includes(run.status) || DONE_SHARD_STATES.includes(shard.state)) return;
      const [agent] = await fleet.listAgents(orgId, [agentId]);
      if (agent && agent.status !== "offline") return; // it came back within the grace period
      const host = agent?.hostname ?? agentId;
      await repos.runs.updateShard(orgId, runId, agentId, { state: "lost", error: "agent lost" });
      const at = now().toISOString();
      await repos.runs.insertEvent(orgId, runId, {
        kind: "agent-lost", agentId, message: `agent ${host} lost at ${at}; its ${shard.clients} clients stopped counting`,
      });
      log.warn({ runId, agentId }, "agent lost mid-run");
      // A lost watcher leaves a gap in the server's series, not in the load: the run goes on as it was.
      if (shard.role === "watch") return closeIfAllShardsDone(orgId, runId);
      if (run.spec.agents?.onLost === "abort") return abort(orgId, runId, `the plan's policy after agent ${host} was lost`);
      if (run.status === "running") await transition(run, "degrade");
      else await publishRun(orgId, runId);
      await closeIfAllShardsDone(orgId, runId);
    },
  };
}
export type RunOrchestrator = ReturnType<typeof createRunOrchestrator>;
