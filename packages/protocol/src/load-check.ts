// Whether a run's load ran as its plan said, for the verdict (run-verdict.ts): its planned seconds measured, the
// sends the plan asks of its connected clients made (a skipped send is not a send), and the clients the plan has
// running at each second connected. Held against the plan (planned-load.ts), never only against what the agents
// reported: a second an agent measured while it stood still, or an agent that stopped reporting, must not read as a
// load that ran as planned. Also the warnings a reader needs even of a pass, with the right party blamed.
import type { LoadCheck } from "./report";
import type { SeriesPoint } from "./snapshot";
import { fewestSendsPerClientInASecond, plannedClientsAt, scheduledSendsPerClient } from "./planned-load";
import type { AgentSecond, RunEvidence } from "./run-verdict";

/** A steady second whose sends fall more than this short of its schedule is short. */
const SHORT_SECOND = 0.9;
/** Only a second due at least this many sends can be short: one send late across a second's edge is not a stall. */
const SENDS_THAT_CAN_BE_SHORT = 5;
/** The load is short of its schedule below this share of the scheduled sends, or with more short seconds than this share. */
const SCHEDULE_SHARE = 0.95;
const SHORT_SECONDS_SHARE = 0.05;
/** Fewer clients connected than this share of the planned ones in a steady second: the load did not hold. */
const CONNECTED_SHARE = 0.9;
/** Seconds the measurements may fall short of the planned time (the first and the closing partial second). */
const SECONDS_SLACK = 2;
/** Median CPU steal over the run above this (percent) flags the run as measured under heavy steal. */
const HEAVY_STEAL_PERCENT = 10;
/** An agent whose event loop was held this long stood still (stopped, swapped out): what it owed then is its own shortfall. */
const STALLED_LOOP_MS = 1000;

/** Why a send found its client's previous message unanswered, when the agent kept time: not always the server's doing. */
const SLOW_REPLIES = "the replies came slower than the send interval: the server, or the network to it";

const clientsHeld = (evidence: RunEvidence) =>
  !(evidence.spec.scenario.kind === "login-storm" && evidence.spec.scenario.hold === false);
const at = (t: number) => new Date(t * 1000).toISOString();

/** The seconds under the planned load: after the ramp and the first second, before the closing partial second. */
export function steadySeconds(evidence: Pick<RunEvidence, "spec" | "seconds" | "startSecond">): SeriesPoint[] {
  const { spec, seconds } = evidence;
  if (seconds.length === 0) return [];
  const start = evidence.startSecond ?? seconds[0]!.t;
  const from = start + Math.max(1, spec.load.rampUpSec);
  const until = start + spec.load.durationSec - 1;
  return seconds.filter((point) => point.t >= from && point.t < until && point.t < seconds[seconds.length - 1]!.t);
}

/** The clients the plan has running in each second (epoch `t`); undefined where the plan does not say (between a search's steps). */
function plannedClients(evidence: RunEvidence, start: number): (point: SeriesPoint) => number | undefined {
  const { load, scenario } = evidence.spec;
  if (load.shape?.kind === "step-up" && load.shape.mode === "auto") {
    const levels = new Map((evidence.capacity?.steps ?? []).map((s) => [s.step, s.clients]));
    return (point) => (point.step === undefined ? undefined : levels.get(point.step));
  }
  // A second's clients as the agents count them: started by the end of that second.
  return (point) => plannedClientsAt(load, scenario, (point.t - start + 1) * 1000 - 1);
}

/** An agent that stood still in the run: its event loop held a second or more, or seconds missing between its first and last. */
interface Stall {
  agentId: string;
  /** The longest hold of its event loop, and when. */
  loopMs: number;
  t: number;
  /** Its seconds missing between its first and its last. */
  missing: number;
}

/**
 * The longest the agent's event loop was held in a second: its one longest hold where it reports it, since a single
 * stall is one sample among the second's hundred and p99 may not reach it (whether it does depends on which timer
 * fires first on resume); its p99 from an agent that reports no longest hold.
 */
const loopHeldMs = (second: AgentSecond) => Math.max(second.eventLoopP99Ms, second.eventLoopMaxMs ?? 0);

function stalls(health: readonly AgentSecond[]): Stall[] {
  const byAgent = new Map<string, AgentSecond[]>();
  for (const second of health) byAgent.set(second.agentId, [...(byAgent.get(second.agentId) ?? []), second]);
  const out: Stall[] = [];
  for (const [agentId, seconds] of byAgent) {
    const worst = seconds.reduce((a, b) => (loopHeldMs(b) > loopHeldMs(a) ? b : a));
    const ts = new Set(seconds.map((s) => s.t));
    const missing = Math.max(...ts) - Math.min(...ts) + 1 - ts.size;
    if (loopHeldMs(worst) >= STALLED_LOOP_MS || missing > 0)
      out.push({ agentId, loopMs: loopHeldMs(worst), t: worst.t, missing });
  }
  return out;
}

function stallText(stall: Stall): string {
  const parts = [
    stall.loopMs >= STALLED_LOOP_MS
      ? `its event loop was held ${(stall.loopMs / 1000).toFixed(1)} s at ${at(stall.t)}`
      : undefined,
    stall.missing > 0 ? `${stall.missing} of its seconds are missing` : undefined,
  ];
  return `agent ${stall.agentId} stood still (${parts.filter(Boolean).join("; ")})`;
}

/** The highest CPU steal among the agents in each second that measured it. */
function stealBySecond(health: readonly AgentSecond[]): number[] {
  const bySecond = new Map<number, number>();
  for (const s of health)
    if (s.stealPercent !== undefined) bySecond.set(s.t, Math.max(bySecond.get(s.t) ?? 0, s.stealPercent));
  return [...bySecond.values()];
}

interface Tally {
  scheduled: number;
  sent: number;
  skipped: number;
  shortSeconds: number;
  scheduledSeconds: number;
  minConnectedShare: number | null;
  leastConnected?: { point: SeriesPoint; planned: number };
}

/** The steady seconds against the plan: the sends due of the clients connected, and the clients connected at a held level. */
function tally(evidence: RunEvidence, steady: readonly SeriesPoint[], start: number): Tally {
  const planned = plannedClients(evidence, start);
  const perClient = scheduledSendsPerClient(evidence.spec.scenario);
  const fewestPerClient = fewestSendsPerClientInASecond(evidence.spec.scenario) ?? 0;
  // A search's broken steps fall short because the server could not keep up (a client sends again only once
  // answered): that is what a search looks for, not a load that failed to run.
  const broken = new Set((evidence.capacity?.steps ?? []).filter((s) => !s.held).map((s) => s.step));
  const out: Tally = {
    scheduled: 0,
    sent: 0,
    skipped: 0,
    shortSeconds: 0,
    scheduledSeconds: 0,
    minConnectedShare: null,
  };
  const levels = steady.map((point) => planned(point) ?? point.clients);
  for (const [i, point] of steady.entries()) {
    const level = levels[i]!;
    // What the plan asks of the clients connected in this second, whatever the agents say they scheduled: an
    // agent that stood still schedules nothing for the seconds it missed (and all of them in one catch-up second).
    const clientsDue = Math.min(level, point.connections);
    const due = perClient === undefined ? undefined : Math.round(perClient * clientsDue);
    if (due !== undefined && due > 0 && !(point.step !== undefined && broken.has(point.step))) {
      out.scheduledSeconds += 1;
      out.scheduled += due;
      out.sent += point.messagesSentPerSec;
      out.skipped += point.skippedSends ?? 0;
      // Short against what the schedule makes in every second, not its average: a second of a 2.5-a-second
      // schedule may hold 2 sends a client on time (the run's total still answers to the average, above).
      const least = Math.min(due, fewestPerClient * clientsDue);
      if (least >= SENDS_THAT_CAN_BE_SHORT && point.messagesSentPerSec < least * SHORT_SECOND) out.shortSeconds += 1;
    }
    // Only seconds at a held level: clients still connecting to a level just raised are not clients lost.
    const held = i >= 2 && levels[i - 1] === level && levels[i - 2] === level;
    if (held && level > 0) {
      const share = Math.min(1, point.connections / level);
      if (out.minConnectedShare === null || share < out.minConnectedShare)
        [out.minConnectedShare, out.leastConnected] = [share, { point, planned: level }];
    }
  }
  out.sent = Math.round(out.sent);
  return out;
}

/** Whether the load ran as the plan said, the reasons it did not, and what a reader should know even of a pass. */
export function checkLoad(
  evidence: RunEvidence,
  context: { nothingMatched: boolean },
): { load: LoadCheck; reasons: string[]; warnings: string[] } {
  const { spec, seconds, summary } = evidence;
  const start = evidence.startSecond ?? seconds[0]?.t ?? 0;
  const plannedSeconds =
    evidence.endedEarlyAtSecond !== undefined && seconds.length > 0
      ? Math.max(0, Math.min(spec.load.durationSec, evidence.endedEarlyAtSecond - start))
      : spec.load.durationSec;
  const counted = tally(evidence, steadySeconds(evidence), start);
  const agentStalls = stalls(evidence.agentHealth ?? []);
  const inFlightAtEnd = summary?.inFlightAtEnd ?? 0;
  // The fewest connected in a steady second, when so few that the load did not hold.
  const least =
    clientsHeld(evidence) && counted.minConnectedShare! < CONNECTED_SHARE ? counted.leastConnected : undefined;
  const load: LoadCheck = {
    plannedSeconds,
    measuredSeconds: seconds.length,
    scheduledSends: counted.scheduled,
    sentSends: counted.sent,
    skippedSends: counted.skipped,
    shortSeconds: counted.shortSeconds,
    minConnectedShare: counted.minConnectedShare,
    inFlightAtEnd,
    ...(least ? { leastConnectedAt: least.point.t, leastConnectedPlanned: least.planned } : {}),
  };
  const reasons: string[] = [];
  const warnings: string[] = [];
  if (seconds.length < plannedSeconds - SECONDS_SLACK)
    reasons.push(`measurements cover ${seconds.length} of the ${plannedSeconds} planned seconds`);
  const short =
    counted.sent < counted.scheduled * SCHEDULE_SHARE ||
    counted.shortSeconds > Math.max(1, counted.scheduledSeconds * SHORT_SECONDS_SHARE);
  if (counted.scheduled > 0 && short) {
    const skipped = counted.skipped > 0 ? ` (${counted.skipped} more skipped: not sends)` : "";
    const cause =
      agentStalls.length > 0
        ? `: ${agentStalls.map(stallText).join("; ")}`
        : !context.nothingMatched && counted.skipped > (counted.scheduled - counted.sent) / 2
          ? `: ${SLOW_REPLIES} (a client sends again only once answered)`
          : "";
    reasons.push(
      `the load fell short of its schedule: ${counted.sent} of ${counted.scheduled} scheduled messages sent${skipped}, ${counted.shortSeconds} of ${counted.scheduledSeconds} seconds more than ${Math.round((1 - SHORT_SECOND) * 100)}% short${cause}`,
    );
  }
  if (least) {
    const reporting =
      least.point.clients < least.planned ? ` (the agents that reported that second held ${least.point.clients})` : "";
    reasons.push(
      `only ${least.point.connections} of ${least.planned} clients were connected at ${at(least.point.t)}${reporting}`,
    );
  }
  if (counted.skipped > 0 && counted.skipped > counted.sent * 0.01) {
    const why =
      agentStalls.length > 0
        ? `while ${agentStalls.map(stallText).join("; ")}: the agent fell behind its own schedule, not the server`
        : context.nothingMatched
          ? "because no reply matched the client's previous message (see the reasons)"
          : `because the client's previous message was still unanswered (${SLOW_REPLIES})`;
    warnings.push(`${counted.skipped} sends were skipped ${why}`);
  } else if (agentStalls.length > 0) {
    warnings.push(
      `${agentStalls.map(stallText).join("; ")}: its timings and sends in those seconds are the agent's, not the server's`,
    );
  }
  if (summary?.saturatedAgents?.length) {
    const [first] = summary.saturatedAgents;
    warnings.push(
      `${summary.saturatedAgents.length} agent(s) were the bottleneck for up to ${Math.max(...summary.saturatedAgents.map((a) => a.seconds))} s (${first!.reason}): the figures understate the server`,
    );
  }
  const steal = stealBySecond(evidence.agentHealth ?? []).sort((a, b) => a - b);
  if (steal.length > 0) {
    const median = steal[Math.floor(steal.length / 2)]!;
    if (median >= HEAVY_STEAL_PERCENT)
      warnings.push(
        `measured under heavy CPU steal: the hypervisor took a median ${median.toFixed(1)}% (peak ${steal[steal.length - 1]!.toFixed(1)}%) of the agents' host CPU`,
      );
  }
  if (inFlightAtEnd > 0)
    warnings.push(
      `${inFlightAtEnd === 1 ? "1 message was" : `${inFlightAtEnd} messages were`} still in flight when the run ended (counted apart: not errors, not lost)`,
    );
  return { load, reasons, warnings };
}
