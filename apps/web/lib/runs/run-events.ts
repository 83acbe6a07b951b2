import type { RunEventView, RunView } from "@throng/protocol/run";
import type { Tone } from "../shared/status";

const EVENT_TEXT: Record<RunEventView["kind"], { word: string; tone: Tone }> = {
  stage: { word: "stage", tone: "idle" },
  "agent-lost": { word: "agent lost", tone: "bad" },
  "agent-returned": { word: "agent back", tone: "ok" },
  aborted: { word: "aborted", tone: "warn" },
  "search-ended": { word: "search done", tone: "ok" },
  "seconds-lost": { word: "seconds lost", tone: "bad" },
  queued: { word: "queued", tone: "idle" },
  "judged-again": { word: "judged again", tone: "warn" },
};

export const eventText = (kind: RunEventView["kind"]) => EVENT_TEXT[kind];

/** "+1 m 05 s" after the run started, or null when it had not started or the time is unreadable. */
export function offsetSeconds(run: Pick<RunView, "startedAt">, at: string): number | null {
  if (!run.startedAt) return null;
  const offset = (Date.parse(at) - Date.parse(run.startedAt)) / 1000;
  return Number.isFinite(offset) ? Math.max(0, offset) : null;
}

/** The last thing that happened to each agent the events name: lost, or back. */
export function agentFates(events: readonly RunEventView[]): Map<string, RunEventView> {
  const fates = new Map<string, RunEventView>();
  for (const event of [...events].sort((a, b) => Date.parse(a.at) - Date.parse(b.at))) {
    if (event.agentId && (event.kind === "agent-lost" || event.kind === "agent-returned"))
      fates.set(event.agentId, event);
  }
  return fates;
}
