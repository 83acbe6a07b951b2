import type { AgentStatus } from "@throng/protocol/api";
import type { RunStatus } from "@throng/protocol/run";

/** Badge colours: ok (green), busy (blue), warn (amber), bad (red), idle (grey). */
export type Tone = "ok" | "busy" | "warn" | "bad" | "idle";

const AGENT_TONES: Record<AgentStatus, Tone> = { online: "ok", busy: "busy", offline: "idle" };

const RUN_TONES: Record<RunStatus, Tone> = {
  queued: "idle",
  preparing: "idle",
  running: "busy",
  stopping: "busy",
  degraded: "warn",
  finished: "ok",
  aborted: "warn",
  failed: "bad",
};

export const agentTone = (status: AgentStatus): Tone => AGENT_TONES[status];
export const runTone = (status: RunStatus): Tone => RUN_TONES[status];

/**
 * An agent's part in one run, as the run's agent table shows it. Live: what the fleet says (busy with this run reads
 * "running"). Ended: how its part ended ("done", or "lost" when the run lost it), never its status today, which
 * says nothing of this run (it read "busy" on a finished run while the agent ran the next one).
 */
export function runAgentStatus(options: {
  live: boolean;
  runId: string;
  agent?: { status: AgentStatus; currentRunId?: string | null };
  lost: boolean;
}): { status: string; tone: Tone } {
  const { live, agent, lost } = options;
  if (lost) return { status: "lost", tone: "bad" };
  if (!live) return { status: "done", tone: "idle" };
  if (!agent) return { status: "unknown", tone: "idle" };
  if (agent.status === "busy" && agent.currentRunId === options.runId) return { status: "running", tone: "busy" };
  return { status: agent.status, tone: agentTone(agent.status) };
}
