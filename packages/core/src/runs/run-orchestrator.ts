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
import { createRunJudgement, DONE_SHARD_STATES, type RunJudgement } from "./run-judgement";
import type { AuditLog } from "../orgs/audit";
import { authorize, type Actor } from "../orgs/permissions";
import { assertPlanSecretsExist } from "../orgs/org-secrets";
import {
  createCapacitySearchRunner,
  DEFAULT_SEARCH_TIMING,
  type CapacitySearchRunner,
  type SearchTiming,
} from "./capacity-search-runner";

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
export const DEFAULT_ORCHESTRATION: OrchestratorConfig = {
  startDelayMs: 2000,
  finishGraceMs: 15_000,
  agentLostGraceMs: 10_000,
};

/** A queued run looks for free agents every five seconds, besides at once when another run of its org ends. */
const DEFAULT_QUEUE_RECHECK_MS = 5000;

const LIVE_RUN_STATUSES = ["running", "degraded"];

/** What the orchestrator is built from. */
export interface OrchestratorDeps {
  repos: Repos;
  fleet: FleetService;
  jobs: Jobs;
  bus: Bus;
  clock: Clock;
  log: Log;
  config: OrchestratorConfig;
  /** Where a user's abort is recorded (the api's part). */
  audit?: Pick<AuditLog, "record">;
  /** Told once a run has ended, however it ended (the workers send notifications); may be told twice for one run. */
  onRunEnded?: (orgId: string, runId: string) => Promise<void>;
}

/** What every step below reads: the dependencies, and the judgement and capacity search they share. */
interface Orchestration extends OrchestratorDeps {
  now(): Date;
  sendToAgent(agentId: string, message: ServerToAgentMessage): Promise<void>;
  judgement: RunJudgement;
  search: CapacitySearchRunner;
}

/** Drives runs through their lifecycle; every entry point is idempotent because a job may run twice. */
export function createRunOrchestrator(deps: OrchestratorDeps) {
  const { repos, fleet, jobs, bus, clock, log, config } = deps;
  const sendToAgent = (agentId: string, message: ServerToAgentMessage) => bus.publish(Channel.agent(agentId), message);
  // Both are called back only after `o` exists.
  const search = createCapacitySearchRunner({
    repos,
    jobs,
    clock,
    log,
    timing: config.search ?? DEFAULT_SEARCH_TIMING,
    send: sendToAgent,
    stopShards: (orgId, runId, reason) => stopShards(o, orgId, runId, reason),
  });
  const judgement = createRunJudgement({
    repos,
    fleet,
    bus,
    clock,
    log,
    publishRun: (orgId, runId) => publishRun(o, orgId, runId),
  });
  const o: Orchestration = { ...deps, now: () => new Date(clock.now()), sendToAgent, search, judgement };
  return {
    start: (orgId: string, runId: string) => start(o, orgId, runId),
    finish: (orgId: string, runId: string) => finish(o, orgId, runId),
    abortRun: (actor: Actor, runId: string) => abortRun(o, actor, runId),
    /** Worker, after seconds (or an agent's end of shard) reached a run that had closed: judge it again (run-judgement.ts). */
    judgeAgain: judgement.judgeAgain,
    /** Worker, after an automatic capacity search's step: judge it and send the next level (capacity-search-runner.ts). */
    searchStep: search.decide,
    shardStatus: (orgId: string, agentId: string, status: ShardStatus) => shardStatus(o, orgId, agentId, status),
    activeAssignments: (orgId: string, agentId: string) => activeAssignments(o, orgId, agentId),
    agentDisconnected: (orgId: string, agentId: string) => agentDisconnected(o, orgId, agentId),
    checkAgent: (orgId: string, runId: string, agentId: string) => checkAgent(o, orgId, runId, agentId),
  };
}
export type RunOrchestrator = ReturnType<typeof createRunOrchestrator>;

async function publishRun(o: Orchestration, orgId: string, runId: string) {
  const row = await o.repos.runs.get(orgId, runId);
  if (row)
    await publishLive(o.bus, runId, { type: "run", run: toRunView(row, await o.repos.runs.listEvents(orgId, runId)) });
}

/** Applies a lifecycle event with compare-and-set; false when it does not apply or another worker won. */
async function transition(o: Orchestration, run: RunRow, event: RunEvent, patch: RunPatch = {}) {
  const next = nextRunStatus(RunStatus.parse(run.status), event);
  if (!next) return false;
  // started_at holds the planned start from the moment a run is set going; a run that ends before it (refused by
  // its agents at once, aborted in its first two seconds) never started, and must not read "started 12:18:25 · ended 12:18:23".
  // A run that finished measured its seconds, so it started (its agents' clocks may run ahead of this one's).
  const neverStarted =
    next !== "finished" && patch.endedAt && run.startedAt && patch.endedAt < run.startedAt ? { startedAt: null } : {};
  const changed = await o.repos.runs.update(run.orgId, run.id, run.status, { ...patch, ...neverStarted, status: next });
  if (changed) {
    o.log.info({ runId: run.id, from: run.status, to: next }, "run status changed");
    await publishRun(o, run.orgId, run.id);
  }
  return changed;
}

/** `clientsBefore`: the clients of the shards before this one, so the shards split every level exactly. */
function assignmentOf(
  o: Orchestration,
  run: RunRow,
  shard: ShardRow,
  shards: { count: number; clientsBefore: number },
  searchStep?: RunAssignment["searchStep"],
): RunAssignment {
  return {
    runId: run.id,
    shardIndex: shard.shardIndex,
    shardCount: shards.count,
    clients: shard.clients,
    clientsBefore: shards.clientsBefore,
    plan: run.spec,
    startAt: run.startAt?.getTime() ?? o.clock.now(),
    ...(searchStep ? { searchStep } : {}),
    ...(shard.role === "watch" ? { role: "watch" as const } : {}),
  };
}

async function stopShards(o: Orchestration, orgId: string, runId: string, reason: string) {
  for (const shard of await o.repos.runs.listShards(orgId, runId)) {
    if (!DONE_SHARD_STATES.includes(shard.state))
      await o.sendToAgent(shard.agentId, { type: "run-stop", payload: { runId, reason } });
  }
}

async function closeIfAllShardsDone(o: Orchestration, orgId: string, runId: string) {
  // A count, not the list: every agent of a big fleet reports its end, and reading n shards n times is n².
  if ((await o.repos.runs.countShards(orgId, runId, DONE_SHARD_STATES)).notIn === 0)
    await o.jobs.finishRun({ orgId, runId }, 0, "all-shards-done");
}

/** Says once per reason why a queued run waits, and looks again later. */
async function keepQueued(o: Orchestration, run: RunRow, reason: string) {
  const events = await o.repos.runs.listEvents(run.orgId, run.id);
  if (events.filter((e) => e.kind === "queued").at(-1)?.message !== reason) {
    await o.repos.runs.insertEvent(run.orgId, run.id, { kind: "queued", agentId: null, message: reason });
    await publishRun(o, run.orgId, run.id);
  }
  await o.jobs.startRun({ orgId: run.orgId, runId: run.id }, o.config.queueRecheckMs ?? DEFAULT_QUEUE_RECHECK_MS);
}

/** The shards of a placed run (load split by cores, then one per watcher); false when the load cannot be split. */
async function storeShards(
  o: Orchestration,
  run: RunRow,
  placement: Extract<Placement, { kind: "ready" }>,
): Promise<boolean> {
  const spec = run.spec;
  const unit = roomUnit(spec.scenario);
  const plan = splitClients(spec.load.clients, shardCandidates(placement.agents, unit), unit);
  if (plan.length === 0) return false;
  const watchShards = placement.watchers.map((w, i) => ({
    agentId: w.id,
    shardIndex: plan.length + i,
    clients: 0,
    role: "watch",
  }));
  await o.repos.runs.insertShards(run.orgId, run.id, [...plan, ...watchShards]);
  return true;
}

/** Why the run's plan cannot start for want of a secret, or null when the organisation has every one it uses. */
async function missingSecrets(o: Orchestration, run: RunRow): Promise<string | null> {
  try {
    await assertPlanSecretsExist(o.repos.secrets, run.orgId, run.spec, "start");
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
async function takeAgents(o: Orchestration, orgId: string, runId: string): Promise<void> {
  await o.repos.runs.withStartLock(orgId, async () => {
    let run = await o.repos.runs.get(orgId, runId);
    if (run?.status !== "queued" && run?.status !== "preparing") return;
    if (run.status === "preparing" && (await o.repos.runs.listShards(orgId, runId)).length > 0) return;
    // A secret deleted while the run waited in the queue: the run fails naming it, before any agent is given it.
    const secretsMissing = await missingSecrets(o, run);
    if (secretsMissing) return void (await transition(o, run, "fail", { error: secretsMissing, endedAt: o.now() }));
    const placement = placeRun(await o.fleet.listAgents(orgId), run.spec);
    if (placement.kind === "busy" && run.status === "queued") return keepQueued(o, run, placement.reason);
    if (placement.kind !== "ready")
      return void (await transition(o, run, "fail", { error: placement.reason, endedAt: o.now() }));
    if (run.status === "queued") {
      if (!(await transition(o, run, "prepare"))) return;
      run = { ...run, status: "preparing" };
    }
    if (!(await storeShards(o, run, placement)))
      await transition(o, run, "fail", { error: "The load cannot be split across the agents", endedAt: o.now() });
  });
}

/** Picks agents, stores shards, sets one start time, and sends each agent its share; waits queued while they are busy. */
async function start(o: Orchestration, orgId: string, runId: string): Promise<void> {
  await takeAgents(o, orgId, runId);
  let run = await o.repos.runs.get(orgId, runId);
  if (run?.status === "failed") return announceEnd(o, orgId, runId);
  if (run?.status !== "preparing") return; // still queued, failed, or already started by an earlier attempt
  const spec = run.spec;
  const shards = await o.repos.runs.listShards(orgId, runId);
  const startAt = o.clock.now() + o.config.startDelayMs;
  if (!(await transition(o, run, "start", { startAt: new Date(startAt), startedAt: new Date(startAt) }))) return;
  run = (await o.repos.runs.get(orgId, runId))!;
  await o.search.begin(run);
  for (const shard of shards) {
    await o.sendToAgent(shard.agentId, {
      type: "run-assignment",
      payload: assignmentOf(o, run, shard, { count: shards.length, clientsBefore: clientsBefore(shards, shard) }),
    });
  }
  const endsIn = startAt + spec.load.durationSec * 1000 + o.config.finishGraceMs - o.clock.now();
  await o.jobs.finishRun({ orgId, runId }, Math.max(0, endsIn), "planned-end");
}

async function announceEnd(o: Orchestration, orgId: string, runId: string) {
  const run = await o.repos.runs.get(orgId, runId);
  if (run && isTerminal(RunStatus.parse(run.status))) await o.onRunEnded?.(orgId, runId);
}

/** Closes a run, then its org's queued runs take the agents it freed, oldest first. */
async function finish(o: Orchestration, orgId: string, runId: string): Promise<void> {
  await closeRun(o, orgId, runId);
  await announceEnd(o, orgId, runId);
  for (const queuedId of await o.repos.runs.listQueuedIds(orgId)) await start(o, orgId, queuedId);
}

/** Closes a run with its summary; agents that never reported are told to stop and named in the error. */
async function closeRun(o: Orchestration, orgId: string, runId: string): Promise<void> {
  const run = await o.repos.runs.get(orgId, runId);
  if (!run) return;
  const snapshots = await o.repos.snapshots.listRun(orgId, runId);
  await o.judgement.rebuildRollup(orgId, runId, snapshots);
  if (run.status === "aborted") {
    // Agents send their last snapshots after an abort: fold them into the summary once they are in. Seconds due
    // before the abort that never arrived are named too: an aborted run's report must not hide a dead agent.
    const problems = await o.judgement.closedProblems(run, await o.repos.runs.listShards(orgId, runId), snapshots);
    const judged = await o.judgement.judge(run, snapshots, "aborted", problems);
    await o.repos.runs.update(orgId, runId, "aborted", { ...judged, judgedSnapshots: snapshots.length });
    await publishRun(o, orgId, runId);
    return judgeAgainIfLate(o, orgId, runId, snapshots.length);
  }
  if (isTerminal(RunStatus.parse(run.status))) return;
  const shards = await o.repos.runs.listShards(orgId, runId);
  await stopShards(o, orgId, runId, "run ended");
  const problems = await o.judgement.shardProblems(run.orgId, shards);
  const verdictProblems = await o.judgement.closedProblems(run, shards, snapshots);
  const patch = {
    ...(await o.judgement.judge(run, snapshots, snapshots.length === 0 ? "failed" : "finished", verdictProblems)),
    endedAt: o.now(),
    judgedSnapshots: snapshots.length,
  };
  if (snapshots.length === 0)
    await transition(o, run, "fail", { ...patch, error: problems.join("; ") || "No agent sent any measurement" });
  else await transition(o, run, "finish", { ...patch, error: problems.length ? problems.join("; ") : null });
  await judgeAgainIfLate(o, orgId, runId, snapshots.length);
}

/**
 * A snapshot stored while the run was being judged is in neither the judgement nor (ingest checked before the
 * close) a judgement again: counted after the close, so one of the two always sees it (ingest checks after its
 * commit whether the run has closed).
 */
async function judgeAgainIfLate(o: Orchestration, orgId: string, runId: string, judged: number) {
  if ((await o.repos.snapshots.countRun(orgId, runId)) > judged) await o.jobs.rejudgeRun({ orgId, runId });
}

/** A user stops a run: every agent is told at once; the summary is refreshed when their last snapshots are in. */
async function abort(o: Orchestration, orgId: string, runId: string, by: string): Promise<void> {
  const run = await o.repos.runs.get(orgId, runId);
  if (!run) throw new ThrongError("not_found", `No run ${runId} in this organisation`);
  if (isTerminal(RunStatus.parse(run.status)))
    throw new ThrongError(
      "conflict",
      `Run ${runId} has already ${run.status === "aborted" ? "been aborted" : run.status}`,
    );
  await o.repos.runs.insertEvent(orgId, runId, { kind: "aborted", agentId: null, message: `aborted by ${by}` });
  await stopShards(o, orgId, runId, `aborted by ${by}`);
  const snapshots = await o.repos.snapshots.listRun(orgId, runId);
  if (
    !(await transition(o, run, "abort", {
      endedAt: o.now(),
      ...(await o.judgement.judge(run, snapshots, "aborted", await o.judgement.eventProblems(orgId, runId))),
    }))
  ) {
    throw new ThrongError("conflict", `Run ${runId} changed state meanwhile; reload and try again`);
  }
  await o.jobs.finishRun({ orgId, runId }, 5_000, "after-abort");
}

/** A user (or token) aborts a run. */
async function abortRun(o: Orchestration, actor: Actor, runId: string): Promise<void> {
  authorize(actor, "run.abort");
  await abort(o, actor.orgId, runId, actor.name ?? actor.label);
  const run = await o.repos.runs.get(actor.orgId, runId);
  await o.audit?.record(actor.orgId, actor.label, "run.aborted", runId, { name: run?.planName ?? null });
}

/** Gateway: an agent reported a shard's state; when every shard is done, the run closes now. */
async function shardStatus(o: Orchestration, orgId: string, agentId: string, status: ShardStatus): Promise<void> {
  const shard = await o.repos.runs.getShard(orgId, status.runId, agentId);
  if (!shard || shard.state === "lost") return;
  if (status.state === "started") {
    if (shard.state === "assigned") await o.repos.runs.updateShard(orgId, status.runId, agentId, { state: "started" });
    return;
  }
  await o.repos.runs.updateShard(orgId, status.runId, agentId, {
    state: status.state,
    lastSeq: status.lastSeq ?? null,
    error: status.error ?? null,
  });
  // The end of a shard after the run closed (its agent cut off until then): the verdict's problems change. An
  // aborted run's close follows its agents' ends, as before.
  const run = await o.repos.runs.get(orgId, status.runId);
  if (run && run.status !== "aborted" && isTerminal(RunStatus.parse(run.status)))
    return o.jobs.rejudgeRun({ orgId, runId: status.runId });
  await closeIfAllShardsDone(o, orgId, status.runId);
}

/** Gateway, after every hello: the shards this agent should be running, so a reconnect resumes them. */
async function activeAssignments(o: Orchestration, orgId: string, agentId: string): Promise<RunAssignment[]> {
  const assignments: RunAssignment[] = [];
  for (const shard of await o.repos.runs.activeShardsForAgent(orgId, agentId)) {
    const run = await o.repos.runs.get(orgId, shard.runId);
    if (!run || !LIVE_RUN_STATUSES.includes(run.status)) continue;
    const { total, clientsBefore } = await o.repos.runs.countShards(orgId, shard.runId, [], shard.shardIndex);
    assignments.push(assignmentOf(o, run, shard, { count: total, clientsBefore }, await o.search.currentLevel(run)));
  }
  return assignments;
}

/** Gateway: an agent holding shards disconnected; give it the grace period to come back. */
async function agentDisconnected(o: Orchestration, orgId: string, agentId: string): Promise<void> {
  for (const shard of await o.repos.runs.activeShardsForAgent(orgId, agentId)) {
    await o.jobs.checkAgent({ orgId, runId: shard.runId, agentId }, o.config.agentLostGraceMs);
  }
}

/** Worker, after the grace period: still gone means lost; the plan says whether the run goes on degraded. */
async function checkAgent(o: Orchestration, orgId: string, runId: string, agentId: string): Promise<void> {
  const run = await o.repos.runs.get(orgId, runId);
  const shard = await o.repos.runs.getShard(orgId, runId, agentId);
  if (!run || !shard || !LIVE_RUN_STATUSES.includes(run.status) || DONE_SHARD_STATES.includes(shard.state)) return;
  const [agent] = await o.fleet.listAgents(orgId, [agentId]);
  if (agent && agent.status !== "offline") return; // it came back within the grace period
  const host = agent?.hostname ?? agentId;
  await o.repos.runs.updateShard(orgId, runId, agentId, { state: "lost", error: "agent lost" });
  const at = o.now().toISOString();
  await o.repos.runs.insertEvent(orgId, runId, {
    kind: "agent-lost",
    agentId,
    message: `agent ${host} lost at ${at}; its ${shard.clients} clients stopped counting`,
  });
  o.log.warn({ runId, agentId }, "agent lost mid-run");
  // A lost watcher leaves a gap in the server's series, not in the load: the run goes on as it was.
  if (shard.role === "watch") return closeIfAllShardsDone(o, orgId, runId);
  if (run.spec.agents?.onLost === "abort")
    return abort(o, orgId, runId, `the plan's policy after agent ${host} was lost`);
  if (run.status === "running") await transition(o, run, "degrade");
  else await publishRun(o, orgId, runId);
  await closeIfAllShardsDone(o, orgId, runId);
}
