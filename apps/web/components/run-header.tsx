"use client";

import Link from "next/link";
import type { RunView } from "@throng/protocol/run";
import type { StreamState } from "../hooks/use-run-live";
import { formatDateTime, formatDuration, formatInteger } from "../lib/format";
import { elapsedSeconds, remainingSeconds } from "../lib/run-timing";
import { runTone } from "../lib/status";
import { StatusBadge } from "./status-badge";

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

/** Which plan, against what, and how far along the run is. */
export function RunHeader({ run, stream, now }: { run: RunView; stream: StreamState; now: number }) {
  const elapsed = elapsedSeconds(run, now);
  const remaining = remainingSeconds(run, now);
  return (
    <header className="panel">
      <div className="page-head">
        <div>
          <p className="muted">
            <Link href="/runs">Runs</Link> / run started {formatDateTime(run.startedAt ?? run.createdAt)}
          </p>
          <h1>
            {run.planName} <StatusBadge status={run.status} tone={runTone(run.status)} testId="run-status" />
          </h1>
        </div>
        {STREAM_NOTE[stream] && <span className="live-note" aria-live="polite">{STREAM_NOTE[stream]}</span>}
      </div>
      <ul className="run-facts">
        <Fact label="Target" value={run.spec.target.url} />
        <Fact label="Clients" value={formatInteger(run.spec.load.clients)} />
        <Fact label="Planned" value={formatDuration(run.spec.load.durationSec)} />
        <Fact label="Elapsed" value={elapsed === null ? "not started" : formatDuration(elapsed)} testId="run-elapsed" />
        {remaining !== null && <Fact label="Remaining" value={formatDuration(remaining)} testId="run-remaining" />}
      </ul>
    </header>
  );
}
