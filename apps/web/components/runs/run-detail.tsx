"use client";

import { useQueryClient } from "@tanstack/react-query";
import { Suspense, useCallback, useEffect, useMemo, useState } from "react";
import type { AgentView } from "@throng/protocol/api";
import type { RunView } from "@throng/protocol/run";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import type { ServerPoint, ServerWatchSummary } from "@throng/protocol/server-watch";
import { useApiQuery } from "../../hooks/use-api-query";
import { useRunLive } from "../../hooks/use-run-live";
import { api } from "../../lib/shared/api";
import { queryKeys } from "../../lib/shared/query-keys";
import { chartSpan, isTerminal, runChartInputs } from "../../lib/shared/run-timing";
import { ChartZoomProvider, runRangeSummary } from "../charts/chart-zoom";
import { distributionMetrics } from "../../lib/runs/latency-distribution";
import { LatencyDistribution } from "./latency-distribution";
import { RunAgents } from "./run-agents";
import { RunBreakdown } from "./run-breakdown";
import { RunCharts, useRunMarkers } from "./run-charts";
import { ErrorSamples } from "./error-samples";
import { RoomsTable } from "./rooms-table";
import { NO_ROOMS } from "@throng/protocol/rooms";
import { RunCohortFigures } from "./run-cohort-charts";
import { RunEvents } from "./run-events";
import { RunHeader } from "./run-header";
import { RunNotes } from "./run-notes";
import { RunBaseline } from "./run-baseline";
import { RunSummary } from "./run-summary";
import { KcpCharts } from "./kcp-charts";
import { ServerCharts } from "./server-charts";
import { SloLive } from "./slo-live";
import { ErrorAlert } from "../ui/error-alert";

const AGENTS_POLL_MS = 2000;
/** Error samples arrive with the agents' seconds; a live run's are read again this often. */
const ERRORS_POLL_MS = 5000;
/** A live movement-sync run's rooms are read again this often (every agent's report is a second's snapshot). */
const ROOMS_POLL_MS = 2000;

/** One run: header with abort, note and tags, events, summary once ended, live charts, and its agents. */
export function RunDetail({ runId }: { runId: string }) {
  const { run, points, seriesRead, server, serverSummary, error, stream, accept } = useRunLive(runId);
  const [now, setNow] = useState(() => Date.now());
  const ended = run ? isTerminal(run.status) : false;
  // Host names and fleet status for the agents table and chart legends; polled only while the run is live.
  const fleet = useApiQuery(queryKeys.agents, (signal) => api.listAgents(signal), {
    pollMs: ended ? undefined : AGENTS_POLL_MS,
  });
  const changed = useRunChanged(accept);
  const errors = useApiQuery(queryKeys.runErrors(runId, ended), (signal) => api.getErrorSamples(runId, signal), {
    pollMs: ended ? undefined : ERRORS_POLL_MS,
  });
  // movement-sync's rooms, read again while the run goes (each agent's newest report, stored as its snapshots
  // arrive, is its rooms so far) and once more when it ended (each agent's last report is then its whole run's).
  const roomsAsked = run?.spec.scenario.kind === "movement-sync" && run.startedAt !== null;
  const rooms = useApiQuery(
    queryKeys.runRooms(runId, roomsAsked, ended),
    (signal) => (roomsAsked ? api.getRooms(runId, signal) : Promise.resolve(NO_ROOMS)),
    { pollMs: roomsAsked && !ended ? ROOMS_POLL_MS : undefined, keepPrevious: true },
  );
  const zoomSummary = useMemo(() => runRangeSummary(runId), [runId]);
  // What the distribution offers: the summary's latencies once ended, else those any second so far measured.
  const latencies = useMemo(() => distributionMetrics(run?.summary ? [run.summary] : points), [run?.summary, points]);

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
  const agents = fleet.data ?? [];
  const names = new Map(agents.map((agent) => [agent.id, agent.hostname]));
  const last = points[points.length - 1];
  return (
    <ChartZoomProvider startedAt={run.startedAt} loadSummary={zoomSummary.load} summaryKey={zoomSummary.key}>
      <RunHeader
        run={run}
        stream={stream}
        now={now}
        agentsReporting={ended || !last ? null : last.agents}
        onAborted={changed}
      />
      <ErrorAlert error={error} />
      <RunNotes run={run} onSaved={changed} />
      {ended ? (
        <>
          <RunSummary run={run} />
          <RunBaseline run={run} points={points} />
          <RunBreakdown run={run} />
        </>
      ) : (
        run.events.length > 0 && (
          <section className="panel" aria-label="Events">
            <RunEvents run={run} />
          </section>
        )
      )}
      {/* Live only: once the run ends its verdict says the same from the whole run. */}
      {!ended && run.spec.slos && run.spec.slos.length > 0 && <SloLive slos={run.spec.slos} points={points} />}
      {run.status === "queued" ? (
        // Nothing can be measured before the run leaves the queue: one line, not a page of empty charts.
        <section className="panel" aria-label="Charts" data-testid="run-charts-queued">
          <p className="muted">
            The charts start with the run&apos;s first second, once its agents take it out of the queue.
          </p>
        </section>
      ) : ended && points.length === 0 && !seriesRead ? (
        // The stream's first event (the run) came before the stored series: "none measured" only once it is read.
        <section className="panel" aria-label="Charts" data-testid="run-charts-reading">
          <p className="loading">Reading the run&apos;s measured seconds…</p>
        </section>
      ) : ended && points.length === 0 ? (
        // Its stored series read and empty: an ended run with none has nothing to chart, ever.
        <section className="panel" aria-label="Charts" data-testid="run-charts-none">
          <p className="muted">
            No second was measured: the run {run.status === "aborted" ? "was aborted" : "ended"} before its agents
            reported any. Its events and verdict above say why.
          </p>
        </section>
      ) : (
        <RunCharts points={points} agents={agents} {...runChartInputs(run)} />
      )}
      {errors.data && (
        <ErrorSamples
          samples={errors.data.samples}
          perKind={errors.data.perKind}
          hostname={(id) => names.get(id) ?? id.slice(0, 8)}
          counted={run.summary?.errorsByKind}
        />
      )}
      {rooms.data && <RoomsTable rooms={rooms.data} live={!ended} />}
      {run.status !== "queued" && points.length > 0 && (
        <Suspense fallback={null}>
          <LatencyDistribution runId={run.id} metrics={latencies} live={!ended} />
        </Suspense>
      )}
      {run.status !== "queued" && <RunCohortFigures run={run} points={points} live={!ended} />}
      {run.spec.target.protocol === "kcp" && run.status !== "queued" && (
        <KcpCharts points={points} summary={ended ? run.summary : null} span={chartSpan(run)} events={run.events} />
      )}
      {run.spec.watch && (
        <RunServerCharts
          run={run}
          points={points}
          server={server}
          summary={ended ? serverSummary : null}
          agents={agents}
        />
      )}
      <RunAgents run={run} agents={agents} points={points} live={!ended} />
    </ChartZoomProvider>
  );
}

/** The server's charts, marked as the load's are. */
function RunServerCharts({
  run,
  points,
  server,
  summary,
  agents,
}: {
  run: RunView;
  points: readonly SeriesPoint[];
  server: readonly ServerPoint[];
  summary: ServerWatchSummary | null;
  agents: readonly AgentView[];
}) {
  const span = chartSpan(run);
  const markers = useRunMarkers(run.events, points, run.note, span, agents);
  return <ServerCharts points={server} summary={summary} span={span} markers={markers} agents={agents} />;
}

/**
 * An abort or a note/tag edit answers the run as it now is: the page shows it at once (the stream brings the rest),
 * and the cached reads that carry the run (its report, every runs list) are asked again when next shown.
 */
function useRunChanged(accept: (run: RunView) => void): (run: RunView) => void {
  const queryClient = useQueryClient();
  return useCallback(
    (run: RunView) => {
      accept(run);
      void queryClient.invalidateQueries({ queryKey: queryKeys.run(run.id) });
      void queryClient.invalidateQueries({ queryKey: queryKeys.runs });
    },
    [accept, queryClient],
  );
}
