"use client";

import { useMemo } from "react";
import type { AgentView } from "@throng/protocol/api";
import type { ServerPoint, ServerWatchSummary } from "@throng/protocol/server-watch";
import type { TimeMarker } from "../../lib/charts/series";
import { serverLines, serverSentence, watcherIds } from "../../lib/runs/server-watch";
import { SeriesChart } from "../charts/series-chart";

interface ServerChartsProps {
  points: readonly ServerPoint[];
  summary?: ServerWatchSummary | null;
  span: readonly [number, number] | null;
  markers?: readonly TimeMarker[];
  agents: readonly AgentView[];
}

/** The section's charts, in order: each draws one set of the watchers' lines on the same seconds. */
const SERVER_CHARTS = [
  { testId: "chart-server-cpu", title: "Server CPU (100 % = one core)", set: "cpu" },
  { testId: "chart-server-rss", title: "Server memory (RSS, MiB): a leak shows as a climb", set: "rss" },
  { testId: "chart-server-packets", title: "Host packets per second", set: "packets" },
] as const;

/** "Server under test": what the plan's watchers sampled on the server's host, on the same seconds as the load. */
export function ServerCharts({ points, summary, span, markers = [], agents }: ServerChartsProps) {
  const idsKey = watcherIds(points).join(",");
  const names = new Map(agents.map((agent) => [agent.id, agent.hostname]));
  const namesKey = idsKey
    .split(",")
    .map((id) => names.get(id) ?? id.slice(0, 8))
    .join(",");
  // Line sets change only when a watcher appears, so the plots are not rebuilt every second.
  const lines = useMemo(() => {
    const ids = idsKey ? idsKey.split(",") : [];
    const labels = namesKey.split(",");
    return serverLines(ids, (id) => labels[ids.indexOf(id)] ?? id.slice(0, 8));
  }, [idsKey, namesKey]);
  const base = { points, span, markers };
  return (
    <section className="panel" aria-labelledby="server-title" data-testid="server-under-test">
      <h2 id="server-title">Server under test</h2>
      {summary ? (
        <p data-testid="server-summary">{serverSentence(summary)}</p>
      ) : (
        points.length === 0 && <p className="muted">Waiting for the watcher's first second…</p>
      )}
      <div className="chart-grid">
        {SERVER_CHARTS.map((chart) => (
          <SeriesChart
            key={chart.testId}
            testId={chart.testId}
            title={chart.title}
            lines={lines[chart.set]}
            {...base}
          />
        ))}
      </div>
    </section>
  );
}
