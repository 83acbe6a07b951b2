import { RunStatus } from "@throng/protocol/run";
import { RunVerdict } from "@throng/protocol/report";
import {
  agentSecond,
  judgeRun,
  searchEvidence,
  type AgentSecond,
  type RunEvidence,
} from "@throng/protocol/run-verdict";
import { AgentHealth } from "@throng/protocol/snapshot";
import type { Repos } from "@throng/db/repos";
import type { RunRow, ShardRow } from "@throng/db/repos/runs";
import type { SnapshotRow } from "@throng/db/repos/snapshots";
import type { FleetService } from "../fleet/fleet-service";
import { analyzeCapacity } from "../capacity/capacity";
import { mergeRows } from "@throng/wire/snapshot-merge";
import { buildSeries, summariseRun } from "@throng/wire/run-summary";
import type { Bus, Clock, Log } from "../ports";
import { lastRunSeq, lostSeconds } from "./lost-seconds";
import { publishLive } from "./live";
import { isTerminal } from "./run-state";

/** Shard states that need nothing more from their agent. */
export const DONE_SHARD_STATES = ["finished", "failed", "lost"];

/** Each agent's health in each second it stored: the verdict names an agent that stood still, and heavy steal. */
function agentSeconds(snapshots: readonly SnapshotRow[]): AgentSecond[] {
  return snapshots.flatMap((row) => {
    const health = AgentHealth.safeParse(row.health).data;
    return health ? [agentSecond(row.second, row.agentId, health)] : [];
  });
}

/** "3 seconds" / "1 second". */
const secondsText = (n: number) => `${n} second${n === 1 ? "" : "s"}`;

/**
 * An agent as people know it: its host name, with the first block of its id where two agents share that name (two
 * containers called "vm"); its id alone when the fleet no longer knows it.
 */
export function agentNamer(agents: readonly { id: string; hostname: string }[]): (agentId: string) => string {
  const hosts = new Map(agents.map((agent) => [agent.id, agent.hostname]));
  const shared = new Set(
    agents.map((agent) => agent.hostname).filter((host, index, all) => all.indexOf(host) !== index),
  );
  return (agentId) => {
    const host = hosts.get(agentId);
    if (!host) return agentId;
    return shared.has(host) ? `${host} (${agentId.slice(0, 8)})` : host;
  };
}

/**
 * A run's judgement from its stored snapshots: the series rebuilt, the summary, the verdict, the capacity estimate,
 * the lost seconds. Used when a run closes and again whenever seconds (or an agent's end of shard) reach it after
 * it closed, so a report never holds a summary, a verdict or an event its own series contradicts.
 */
export function createRunJudgement(deps: {
  repos: Repos;
  fleet: FleetService;
  bus: Bus;
  clock: Clock;
  log: Log;
  publishRun: (orgId: string, runId: string) => Promise<void>;
}) {
  const { repos, fleet, bus, clock, log } = deps;

  /** Every second's roll-up again from the stored snapshots: what ingest coalesced (or lost in a crash) is exact now. */
  async function rebuildRollup(orgId: string, runId: string, snapshots: readonly SnapshotRow[]) {
    const stored = new Map(
      (await repos.snapshots.listSeconds(orgId, runId)).map((p) => [(p as { t: number }).t, JSON.stringify(p)]),
    );
    for (const point of buildSeries(snapshots)) {
      if (stored.get(point.t) === JSON.stringify(point)) continue;
      // A second ingest had not merged yet (a crashed API's coalescing window): store it and tell the browsers. Under
      // the second's lock and from its snapshots as they are now: a snapshot stored (and merged by ingest) since
      // `snapshots` was read must not be dropped again by this older point.
      await repos.snapshots.withSecondLocked(runId, point.t, async (locked) => {
        const merged = mergeRows(await locked.listSecond(orgId, runId, point.t));
        const current = merged.point(point.t);
        await locked.upsertSecond(orgId, runId, point.t, current);
        await publishLive(bus, runId, { type: "point", point: current });
        await publishLive(bus, runId, { type: "agent-health", t: point.t, agents: [...merged.health()] });
      });
    }
  }

  /**
   * Summary, verdict and capacity estimate from every stored snapshot, and how many it judged. The verdict judges
   * the evidence as a whole (run-verdict.ts): how the run ended, what went wrong with its agents, whether the load
   * ran as planned.
   */
  async function judge(
    run: RunRow,
    snapshots: readonly SnapshotRow[],
    ended: RunEvidence["ended"],
    problems: readonly string[],
  ) {
    const spec = run.spec;
    const summary = summariseRun(snapshots);
    const seconds = buildSeries(snapshots);
    const capacity = analyzeCapacity(snapshots, spec.slos ?? [], spec.load);
    const events = await repos.runs.listEvents(run.orgId, run.id);
    const searchEnded = events.find((e) => e.kind === "search-ended");
    const verdict = judgeRun({
      spec,
      ended,
      problems,
      summary: snapshots.length ? summary : null,
      seconds,
      capacity: capacity && searchEvidence(capacity),
      ...(run.startAt ? { startSecond: Math.floor(run.startAt.getTime() / 1000) } : {}),
      ...(searchEnded ? { endedEarlyAtSecond: Math.ceil(new Date(searchEnded.at).getTime() / 1000) } : {}),
      agentHealth: agentSeconds(snapshots),
    });
    return { summary, verdict, capacity };
  }

  /** What the run's events say went wrong: lost agents, and who aborted it. */
  async function eventProblems(orgId: string, runId: string): Promise<string[]> {
    const events = await repos.runs.listEvents(orgId, runId);
    return events.filter((e) => e.kind === "agent-lost" || e.kind === "aborted").map((e) => e.message);
  }

  /**
   * Seconds an agent's shard should have delivered and the run does not hold (its process killed before sending
   * them, its link cut): one `seconds-lost` event per agent, as they stand now (an event a later judgement finds
   * untrue is replaced: seconds that arrived late are not lost), and the reasons. `endMs`: when the run ended.
   */
  async function recordLostSeconds(
    run: RunRow,
    shards: readonly ShardRow[],
    snapshots: readonly SnapshotRow[],
    endMs: number,
  ): Promise<string[]> {
    if (!run.startAt) return [];
    const stored = new Map<string, Set<number>>();
    for (const row of snapshots) stored.set(row.agentId, (stored.get(row.agentId) ?? new Set()).add(row.seq));
    const events = await repos.runs.listEvents(run.orgId, run.id);
    // A run that ended early (its search ended, a user aborted it) owes only the seconds before that moment.
    const endedEarly = events
      .filter((e) => e.kind === "search-ended" || e.kind === "aborted")
      .map((e) => new Date(e.at).getTime());
    const agents = await fleet.listAgents(
      run.orgId,
      shards.map((s) => s.agentId),
    );
    const lost = lostSeconds({
      shards,
      stored,
      lastRunSeq: lastRunSeq(run.startAt.getTime(), run.spec.load.durationSec, Math.min(endMs, ...endedEarly)),
      names: new Map(agents.map((a) => [a.id, a.hostname])),
    });
    const recorded = events.filter((e) => e.kind === "seconds-lost").map((e) => `${e.agentId}:${e.message}`);
    if (JSON.stringify(recorded) !== JSON.stringify(lost.map((l) => `${l.agentId}:${l.message}`))) {
      await repos.runs.replaceEvents(run.orgId, run.id, "seconds-lost", lost);
      for (const { agentId, message } of lost) log.warn({ runId: run.id, agentId }, message);
    }
    return lost.map((l) => l.message);
  }

  /**
   * What went wrong with a closing run's shards, in words: for its error and its verdict. Agents by their host names
   * (as the Agents page shows them), with a short id only where two of the run's agents share a host name.
   */
  async function shardProblems(orgId: string, shards: readonly ShardRow[]): Promise<string[]> {
    const troubled = shards.filter(
      (s) => s.state === "failed" || s.state === "lost" || !DONE_SHARD_STATES.includes(s.state),
    );
    if (troubled.length === 0) return [];
    const name = agentNamer(
      await fleet.listAgents(
        orgId,
        shards.map((s) => s.agentId),
      ),
    );
    return [
      ...shards.filter((s) => s.state === "failed").map((s) => `agent ${name(s.agentId)}: ${s.error ?? "failed"}`),
      ...shards.filter((s) => s.state === "lost").map((s) => `agent ${name(s.agentId)} was lost mid-run`),
      ...shards
        .filter((s) => !DONE_SHARD_STATES.includes(s.state))
        .map((s) => `agent ${name(s.agentId)} did not report the end of its shard`),
    ];
  }

  /**
   * A closing (or closed) run's verdict problems as the evidence stands now: an aborted run's events (who aborted
   * it, agents lost), any other's shards; and the seconds it lost. Recorded as `seconds-lost` events on the way.
   */
  async function closedProblems(
    run: RunRow,
    shards: readonly ShardRow[],
    snapshots: readonly SnapshotRow[],
  ): Promise<string[]> {
    const lost = await recordLostSeconds(run, shards, snapshots, run.endedAt?.getTime() ?? clock.now());
    if (run.status === "aborted") return [...(await eventProblems(run.orgId, run.id)), ...lost];
    // A run that lost an agent (degraded) did not run as planned: its verdict says so, whatever its SLOs say.
    const wasDegraded =
      run.status === "degraded" ||
      (await repos.runs.listEvents(run.orgId, run.id)).some((e) => e.kind === "agent-lost");
    const degraded =
      wasDegraded && !shards.some((s) => s.state === "lost") ? ["the run was degraded: an agent was lost"] : [];
    return [...(await shardProblems(run.orgId, shards)), ...degraded, ...lost];
  }

  /**
   * Seconds (or an agent's end of shard) reached a run after it closed: its series, summary, verdict, capacity
   * estimate and lost seconds are rebuilt from everything stored, and an event says how many seconds came late.
   * Idempotent: the same evidence gives the same judgement, and only the judgement that finds the late seconds
   * first records them. An aborted run waits for the close that follows its agents' last seconds (5 s after).
   */
  async function judgeAgain(orgId: string, runId: string): Promise<void> {
    const run = await repos.runs.get(orgId, runId);
    if (!run || !isTerminal(RunStatus.parse(run.status))) return;
    if (run.status === "aborted" && run.judgedSnapshots === null) return;
    const snapshots = await repos.snapshots.listRun(orgId, runId);
    await rebuildRollup(orgId, runId, snapshots);
    const shards = await repos.runs.listShards(orgId, runId);
    const ended = run.status === "aborted" ? "aborted" : run.status === "failed" ? "failed" : "finished";
    const judged = await judge(run, snapshots, ended, await closedProblems(run, shards, snapshots));
    // A run closed before the count was kept is judged again without a count to tell.
    const late = run.judgedSnapshots === null ? 0 : snapshots.length - run.judgedSnapshots;
    const patch = { ...judged, judgedSnapshots: snapshots.length };
    if (!(await repos.runs.update(orgId, runId, run.status, patch, { judgedSnapshots: run.judgedSnapshots }))) return;
    if (late > 0) {
      const before = RunVerdict.safeParse(run.verdict).data?.outcome;
      const after = judged.verdict.outcome;
      const change = before && before !== after ? ` (its verdict is now ${after}, was ${before})` : "";
      const message = `${secondsText(late)} arrived after the run closed; the run was judged again${change}`;
      await repos.runs.insertEvent(orgId, runId, { kind: "judged-again", agentId: null, message });
      log.warn({ runId, late, before, after }, message);
    }
    await deps.publishRun(orgId, runId);
  }

  return { rebuildRollup, judge, eventProblems, shardProblems, closedProblems, judgeAgain };
}
export type RunJudgement = ReturnType<typeof createRunJudgement>;
