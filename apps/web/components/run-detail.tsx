"use client";

import { useEffect, useState } from "react";
import { useRunLive } from "../hooks/use-run-live";
import { chartSpan, isTerminal } from "../lib/run-timing";
import { RunCharts } from "./run-charts";
import { RunHeader } from "./run-header";
import { RunSummary } from "./run-summary";

/** One run: header, live charts and, once it has ended, its summary. */
export function RunDetail({ runId }: { runId: string }) {
  const { run, points, error, stream } = useRunLive(runId);
  const [now, setNow] = useState(() => Date.now());
  const ended = run ? isTerminal(run.status) : false;

  // Elapsed and remaining tick every second while the run is live.
  useEffect(() => {
    if (ended) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ended]);

  if (!run) {
    return error ? (
      <p className="alert" role="alert">
        {error}
      </p>
    ) : (
      <p className="loading">Loading run…</p>
    );
  }
  return (
    <>
      <RunHeader run={run} stream={stream} now={now} />
      {error && (
        <p className="alert" role="alert">
          {error}
        </p>
      )}
      {ended && <RunSummary summary={run.summary} error={run.status === "failed" ? run.error : null} />}
      <RunCharts points={points} span={chartSpan(run)} />
    </>
  );
}
