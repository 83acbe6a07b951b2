import { Channel } from "@throng/protocol/jobs";
import { PlanSpec } from "@throng/protocol/plan";
import { RunStatus, type LiveMessage } from "@throng/protocol/run";
import type { RunAssignment, ShardStatus } from "@throng/protocol/agent";
import type { ServerToAgentMessage } from "@throng/protocol/agent";
import type { Repos } from "@throng/db/repos";
import type { RunRow, ShardRow } from "@throng/db/repos/runs";
import type { FleetService } from "../fleet/fleet-service";
import { summarize } from "../metrics/series";
import type { Bus, Clock, Jobs, Log } from "../ports";
import { nextRunStatus, type RunEvent } from "./run-state";
import { toRunView } from "./run-view";
import { splitClients } from "./shards";

export interface OrchestratorConfig {
  /** Time between assignment and the synchronised start, so every agent has it in hand. */
  startDelayMs: number;
  /** How long after the planned end a run waits for its agents' last snapshots. */
  finishGraceMs: number;
}

/** Two seconds to deliver assignments before the common start; fifteen for last snapshots after the end. */
export const DEFAULT_ORCHESTRATION: OrchestratorConfig = { startDelayMs: 2000, finishGraceMs: 15_000 };

const FINISHED_SHARD_STATES = ["finished", "failed"];

/** Drives runs through their lifecycle; every entry point is idempotent because a job may run twice. */
export function createRunOrchestrator(deps: {
  repos: Repos; fleet: FleetService; jobs: Jobs; bus: Bus; clock: Clock; log: Log; config: OrchestratorConfig;
}) {
  const { repos, fleet, jobs, bus, clock, log, config } = deps;

  async function transition(run: RunRow, event: RunEvent, patch: Parameters<Repos["runs"]["update"]>[3] = {}) {
    const next = nextRunStatus(RunStatus.parse(run.status), event);
    if (!next) return false;
    const changed = await repos.runs.update(run.orgId, run.id, run.status, { ...patch, status: next });
    if (changed) {
      const updated = await repos.runs.get(run.orgId, run.id);
      if (updated) await bus.publish(Channel.run(run.id), { type: "run", run: toRunView(updated) } satisfies LiveMessage);
      log.info({ runId: run.id, from: run.status, to: next }, "run status changed");
    }
    return changed;
  }

  function assignmentOf(run: RunRow, shard: ShardRow, shardCount: number): RunAssignment {
    return {
      runId: run.id, shardIndex: shard.shardIndex, shardCount, clients: shard.clients,
      plan: PlanSpec.parse(run.spec), startAt: run.startAt?.getTime() ?? clock.now(),
    };
  }

  async function sendToAgent(agentId: string, message: ServerToAgentMessage) {
    await bus.publish(Channel.agent(agentId), message);
  }

  /** Picks agents, stores shards, sets one start time, and sends each agent its share. */
  async function start(orgId: string, runId: string): Promise<void> {
    let run = await repos.runs.get(orgId, runId);
    if (!run) return;
    if (run.status === "queued") {
      await transition(run, "prepare");
      run = (await repos.runs.get(orgId, runId))!;
    }
    if (run.status !== "preparing") return; // already started by an earlier attempt
    let shards = await repos.runs.listShards(orgId, runId);
    if (shards.length === 0) {
      const spec = PlanSpec.parse(run.spec);
      const agents = (await fleet.listAgents(orgId)).filter((a) => a.status === "online");
      const plan = splitClients(spec.load.clients, agents.map((a) => ({ agentId: a.id, cores: a.cores })));
      if (plan.length === 0) {
        await transition(run, "fail", { error: "No agent was online when the run started", endedAt: new Date(clock.now()) });
        return;
      }
      await repos.runs.insertShards(orgId, runId, plan);
      shards = await repos.runs.listShards(orgId, runId);
    }
    const startAt = clock.now() + config.startDelayMs;
    if (!(await transition(run, "start", { startAt: new Date(startAt), startedAt: new Date(startAt) }))) return;
    run = (await repos.runs.get(orgId, runId))!;
    for (const shard of shards) {
      await sendToAgent(shard.agentId, { type: "run-assignment", payload: assignmentOf(run, shard, shards.length) });
    }
    const spec = PlanSpec.parse(run.spec);
    const endsIn = startAt + spec.load.durationSec * 1000 + config.finishGraceMs - clock.now();
    await jobs.finishRun({ orgId, runId }, Math.max(0, endsIn), "planned-end");
  }

  /** Closes a run with its summary; agents that never reported are told to stop and named in the error. */
  async function finish(orgId: string, runId: string): Promise<void> {
    const run = await repos.runs.get(orgId, runId);
    if (!run || ["finished", "aborted", "failed"].includes(run.status)) return;
    const shards = await repos.runs.listShards(orgId, runId);
    const silent = shards.filter((s) => !FINISHED_SHARD_STATES.includes(s.state));
    for (const shard of silent) await sendToAgent(shard.agentId, { type: "run-stop", payload: { runId, reason: "run ended" } });
    const snapshots = await repos.snapshots.listRun(orgId, runId);
    const summary = summarize(snapshots);
    const failures = shards.filter((s) => s.state === "failed").map((s) => `agent ${s.agentId}: ${s.error ?? "failed"}`);
    const missing = silent.map((s) => `agent ${s.agentId} did not report the end of its shard`);
    const problems = [...failures, ...missing];
    const endedAt = new Date(clock.now());
    if (snapshots.length === 0) {
      await transition(run, "fail", { summary, endedAt, error: problems.join("; ") || "No agent sent any measurement" });
      return;
    }
    await transition(run, "finish", { summary, endedAt, error: problems.length ? problems.join("; ") : null });
  }

  return {
    start,
    finish,

    /** Gateway: an agent reported a shard's state; when every shard is done, the run closes now. */
    async shardStatus(orgId: string, agentId: string, status: ShardStatus): Promise<void> {
      const shard = await repos.runs.getShard(orgId, status.runId, agentId);
      if (!shard) return;
      if (status.state === "started") {
        if (shard.state === "assigned") await repos.runs.updateShard(orgId, status.runId, agentId, { state: "started" });
        return;
      }
      await repos.runs.updateShard(orgId, status.runId, agentId, {
        state: status.state, lastSeq: status.lastSeq ?? null, error: status.error ?? null,
      });
      const shards = await repos.runs.listShards(orgId, status.runId);
      if (shards.every((s) => FINISHED_SHARD_STATES.includes(s.state))) {
        await jobs.finishRun({ orgId, runId: status.runId }, 0, "all-shards-done");
      }
    },

    /** Gateway, after every hello: the shards this agent should be running, so a reconnect resumes them. */
    async activeAssignments(orgId: string, agentId: string): Promise<RunAssignment[]> {
      const assignments: RunAssignment[] = [];
      for (const shard of await repos.runs.activeShardsForAgent(orgId, agentId)) {
        const run = await repos.runs.get(orgId, shard.runId);
        if (!run || run.status !== "running") continue;
        const count = (await repos.runs.listShards(orgId, shard.runId)).length;
        assignments.push(assignmentOf(run, shard, count));
      }
      return assignments;
    },
  };
}
export type RunOrchestrator = ReturnType<typeof createRunOrchestrator>;
