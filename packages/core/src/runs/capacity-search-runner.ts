import {
  autoSearchOf,
  nextLevelStart,
  nextSearchStep,
  SEARCH_END_TEXT,
  type AutoSearch,
} from "@throng/protocol/capacity-search";
import type { RunAssignment, ServerToAgentMessage } from "@throng/protocol/agent";
import type { Repos } from "@throng/db/repos";
import type { RunRow, ShardRow } from "@throng/db/repos/runs";
import type { SearchStepRow } from "@throng/db/repos/search-steps";
import { measureStep } from "@throng/wire/capacity-step";
import type { Clock, Jobs, Log } from "../ports";

export interface SearchTiming {
  /** How long after a step's end its seconds are first looked at: agents send each second as it ends. */
  searchLagMs: number;
  /** How long after a step's end the search waits at most for an agent's last second before judging without it. */
  searchMaxLagMs: number;
  /** Time between looks while a second is missing. */
  searchRetryMs: number;
}

export const DEFAULT_SEARCH_TIMING: SearchTiming = { searchLagMs: 300, searchMaxLagMs: 5_000, searchRetryMs: 250 };

/** Shard states whose agent sends no more seconds. */
const DONE_SHARD_STATES = ["finished", "failed", "lost"];
const LIVE_RUN_STATUSES = ["running", "degraded"];

/**
 * The control plane's side of an automatic capacity search. The decision is global: at each step's end (plus
 * a lag for the agents' last seconds) the step is judged on every agent's stored snapshots, the decision is
 * stored (PostgreSQL is the source of truth), and every agent is told the next level with one absolute start.
 * Every entry point is idempotent: a job may run twice, and two workers may race for one step.
 */
export function createCapacitySearchRunner(deps: {
  repos: Repos;
  jobs: Jobs;
  clock: Clock;
  log: Log;
  timing: SearchTiming;
  send(agentId: string, message: ServerToAgentMessage): Promise<void>;
  /** Ends the run's load on every agent: the search has its answer. */
  stopShards(orgId: string, runId: string, reason: string): Promise<void>;
}) {
  const { repos, jobs, clock, log, timing } = deps;

  const stepEndOf = (search: AutoSearch, step: SearchStepRow) => step.startAt.getTime() + search.stepDurationSec * 1000;

  async function schedule(orgId: string, runId: string, step: number, attempt: number, at: number) {
    await jobs.searchStep({ orgId, runId, step, attempt }, Math.max(0, at - clock.now()));
  }

  /** Whether every agent still sending has stored the step's last second. */
  function complete(
    rows: readonly { agentId: string; second: number }[],
    shards: readonly ShardRow[],
    lastSecond: number,
  ) {
    // A watcher's shard (PROTOCOL.md §11) sends server samples, never load seconds: nothing to wait for.
    const live = shards.filter((s) => s.role !== "watch" && !DONE_SHARD_STATES.includes(s.state));
    return live.every((shard) => rows.some((r) => r.agentId === shard.agentId && r.second >= lastSecond));
  }

  /** Tells every agent still running the level, and looks at the step when it ends. Both are repeat-safe. */
  async function announce(
    runId: string,
    orgId: string,
    search: AutoSearch,
    level: SearchStepRow,
    shards: readonly ShardRow[],
  ) {
    const startAt = level.startAt.getTime();
    for (const shard of shards) {
      if (DONE_SHARD_STATES.includes(shard.state) || shard.role === "watch") continue;
      await deps.send(shard.agentId, {
        type: "search-step",
        payload: { runId, step: level.step, clients: level.clients, phase: level.phase, startAt },
      });
    }
    await schedule(orgId, runId, level.step, 0, stepEndOf(search, level) + timing.searchLagMs);
  }

  return {
    /** A run starts: store its first level (the plan's startClients, from the run's start) and look at it when it ends. */
    async begin(run: RunRow): Promise<void> {
      const search = autoSearchOf(run.spec.load);
      if (!search || !run.startAt) return;
      const first = { step: 0, clients: search.startClients, phase: "coarse" as const, startAt: run.startAt };
      await repos.searchSteps.insert(run.orgId, run.id, first);
      await schedule(run.orgId, run.id, 0, 0, stepEndOf(search, { ...first, held: null }) + timing.searchLagMs);
    },

    /** The level a (re)connecting agent should hold now, when the search has moved past its first. */
    async currentLevel(run: RunRow): Promise<RunAssignment["searchStep"]> {
      const last = (await repos.searchSteps.list(run.orgId, run.id)).at(-1);
      if (!last || last.step === 0) return undefined;
      return { step: last.step, clients: last.clients, phase: last.phase, startAt: last.startAt.getTime() };
    },

    /** Worker, after a step's end: judge it on every agent's seconds, then store and send the next level (or end the run). */
    async decide(orgId: string, runId: string, stepIndex: number, attempt: number): Promise<void> {
      const run = await repos.runs.get(orgId, runId);
      if (!run?.startAt || !LIVE_RUN_STATUSES.includes(run.status)) return;
      const spec = run.spec;
      const search = autoSearchOf(spec.load);
      if (!search) return;
      const steps = await repos.searchSteps.list(orgId, runId);
      const step = steps.find((s) => s.step === stepIndex);
      const shards = await repos.runs.listShards(orgId, runId);
      const decided = steps.find((s) => s.step === stepIndex + 1);
      // Decided already: this is a retry, maybe of a worker that stopped between storing and sending; send again.
      if (decided) return announce(run.id, orgId, search, decided, shards);
      if (!step) return;
      const stepEnd = stepEndOf(search, step);
      const rows = await repos.snapshots.listStep(orgId, runId, stepIndex);
      const now = clock.now();
      if (!complete(rows, shards, Math.floor(stepEnd / 1000) - 1)) {
        if (now < stepEnd + timing.searchMaxLagMs)
          return schedule(orgId, runId, stepIndex, attempt + 1, now + timing.searchRetryMs);
        log.warn({ runId, step: stepIndex }, "judging a search step without every agent's last second");
      }
      // Judged on the step's steady seconds, with the code the final estimate uses; a first level that broke is
      // held again (a coarse step at the same level) before the search concludes the server is below it.
      const held = rows.length > 0 && measureStep(stepIndex, rows, spec.slos ?? []).held;
      await repos.searchSteps.judge(orgId, runId, stepIndex, held, new Date(now));
      const judged = (await repos.searchSteps.list(orgId, runId)).filter((s) => s.step <= stepIndex && s.held !== null);
      const next = nextSearchStep(
        search,
        judged.map((s) => ({ clients: s.clients, phase: s.phase, held: s.held! })),
      );
      if (next.done) {
        const reason = `capacity search finished: ${SEARCH_END_TEXT[next.reason]}`;
        log.info({ runId, step: stepIndex, held }, reason);
        await repos.runs.insertEvent(orgId, runId, { kind: "search-ended", agentId: null, message: reason });
        return deps.stopShards(orgId, runId, reason);
      }
      const startAt = nextLevelStart(run.startAt.getTime(), stepEnd, now);
      // Past the planned end the agents have stopped: the run ends there, with the steps it judged.
      if (startAt >= run.startAt.getTime() + spec.load.durationSec * 1000) return;
      const level = {
        step: stepIndex + 1,
        clients: next.clients,
        phase: next.phase,
        startAt: new Date(startAt),
        held: null,
      };
      if (!(await repos.searchSteps.insert(orgId, runId, level))) return; // another worker decided it
      log.info(
        { runId, step: level.step, clients: level.clients, phase: level.phase, held },
        next.retry ? "capacity search: the first level again, after it broke" : "capacity search: next level",
      );
      await announce(runId, orgId, search, level, shards);
    },
  };
}
export type CapacitySearchRunner = ReturnType<typeof createCapacitySearchRunner>;
