"use client";

import Link from "next/link";
import type { RunView } from "@throng/protocol/run";
import type { StreamState } from "../../hooks/use-run-live";
import { formatDateTime, formatDuration, formatInteger } from "../../lib/shared/format";
import { describeLoad, describeScenario, describeTarget } from "../../lib/plans/plan-summary";
import { elapsedSeconds, isTerminal, plannedSeconds, remainingSeconds } from "../../lib/shared/run-timing";
import { statusTone, verdictBadge, verdictTitle } from "../../lib/shared/verdict";
import { AbortRunButton } from "./abort-run-button";
import { RunQueuedNotice } from "./run-queued-notice";
import { can } from "../../lib/shared/settings-permissions";
import { useMe } from "../shell/session-gate";
import { StatusBadge } from "../ui/status-badge";

const STREAM_NOTE: Record<StreamState, string> = {
  connecting: "Connecting to live updates…",
  live: "Live — updates every second",
  reconnecting: "Live updates interrupted; reconnecting…",
  closed: "",
};

function Fact({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <li>
      <span className="label">{label}</span>
      <span className="value" data-testid={testId}>
        {value}
      </span>
    </li>
  );
}

interface RunHeaderProps {
  run: RunView;
  stream: StreamState;
  now: number;
  agentsReporting: number | null;
  onAborted: (run: RunView) => void;
}

/** Which plan, against what, how far along the run is, and the way to stop it. */
export function RunHeader({ run, stream, now, agentsReporting, onAborted }: RunHeaderProps) {
  const elapsed = elapsedSeconds(run, now);
  const remaining = remainingSeconds(run, now);
  const planned = plannedSeconds(run);
  const live = !isTerminal(run.status);
  const aborts = can(useMe().role, "run.abort");
  return (
    <header className="panel">
      <div className="page-head">
        <div>
          <p className="muted small">
            <Link href="/runs">Runs</Link> / <Link href={`/plans/${run.planId}`}>{run.planName}</Link>
            {run.planVersion != null && <span data-testid="run-plan-version"> · plan v{run.planVersion}</span>} ·
            created {formatDateTime(run.createdAt)}
          </p>
          <h1>
            {run.planName}{" "}
            {verdictSaysStatus(run) ? (
              <span title={verdictTitle(run)}>
                <StatusBadge status={run.status} tone={verdictBadge(run.verdict)!.tone} testId="run-status" />
              </span>
            ) : (
              <>
                <StatusBadge status={run.status} tone={statusTone(run)} testId="run-status" />
                <RunVerdictBadge run={run} />
              </>
            )}
          </h1>
        </div>
        <div className="head-actions">
          {STREAM_NOTE[stream] && (
            <span className="live-note" aria-live="polite" data-testid="stream-state" data-state={stream}>
              {STREAM_NOTE[stream]}
            </span>
          )}
          {live && aborts && <AbortRunButton run={run} onAborted={onAborted} />}
          {!live && (
            <Link className="button" href={`/runs/${run.id}/report`} data-testid="run-report-link">
              Report
            </Link>
          )}
        </div>
      </div>
      <RunQueuedNotice run={run} />
      <ul className="run-facts">
        <Fact label="Target" value={describeTarget(run.spec)} />
        <Fact label="Load" value={describeLoad(run.spec)} />
        <Fact label="Scenario" value={describeScenario(run.spec)} />
        <Fact label="Elapsed" value={elapsed === null ? "not started" : formatDuration(elapsed)} testId="run-elapsed" />
        {remaining !== null && <Fact label="Remaining" value={formatDuration(remaining)} testId="run-remaining" />}
        {agentsReporting !== null && (
          <Fact label="Agents reporting" value={formatInteger(agentsReporting)} testId="run-agents-reporting" />
        )}
      </ul>
      {live && elapsed !== null && (
        <progress className="run-progress" max={planned} value={Math.min(planned, elapsed)} aria-label="Run progress">
          {Math.round((Math.min(planned, elapsed) / planned) * 100)}%
        </progress>
      )}
    </header>
  );
}

/** An aborted (or failed) run's verdict is the same word as its status: one badge says it, not two side by side. */
const verdictSaysStatus = (run: RunView): boolean => verdictBadge(run.verdict)?.label === run.status;

/** Beside the status once the run has ended: a "finished" run is not a pass unless its verdict says so. */
function RunVerdictBadge({ run }: { run: RunView }) {
  const badge = verdictBadge(run.verdict);
  if (!badge) return null;
  return (
    <span title={verdictTitle(run)}>
      {" "}
      <StatusBadge status={badge.label} tone={badge.tone} testId="run-verdict" />
    </span>
  );
}
