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
