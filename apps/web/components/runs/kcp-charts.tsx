"use client";

import { useMemo } from "react";
import type { RunEventView, RunSummary } from "@throng/protocol/run";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { eventMarkers } from "../../lib/charts/series";
import { KCP_OVERHEAD_LINES, KCP_RETRANSMIT_LINES, KCP_WIRE_LINES, kcpSentence } from "../../lib/runs/kcp-series";
import { SeriesChart } from "../charts/series-chart";

interface KcpChartsProps {
  points: readonly SeriesPoint[];
  /** The run's summary once it ended: the whole run's figures in a sentence above the charts. */
  summary?: RunSummary | null;
  span: readonly [number, number] | null;
  events: readonly RunEventView[];
}

/** The section's charts, in order; each draws the same seconds, span and event markers. */
const KCP_CHARTS = [
  { testId: "chart-kcp-retransmits", title: "KCP retransmissions per second, by cause", lines: KCP_RETRANSMIT_LINES },
  { testId: "chart-kcp-overhead", title: "Wire overhead over payload (%)", lines: KCP_OVERHEAD_LINES },
  { testId: "chart-kcp-wire", title: "Bytes on the wire and payload, both ways", lines: KCP_WIRE_LINES, unit: "bytes" },
] as const;

/**
 * "KCP": what the protocol did each second (agent/PROTOCOL.md §5's kcp* counters, merged across agents):
 * retransmissions by cause, and bytes on the wire against payload bytes as an overhead in percent.
 */
export function KcpCharts({ points, summary, span, events }: KcpChartsProps) {
  const markers = useMemo(() => eventMarkers(events), [events]);
  const sentence = summary ? kcpSentence(summary) : undefined;
  return (
    <section className="panel" aria-labelledby="kcp-title" data-testid="kcp-section">
      <h2 id="kcp-title">KCP</h2>
      {sentence ? (
        <p data-testid="kcp-summary">Over the run: {sentence}</p>
      ) : (
        <p className="muted">
          Retransmissions and bytes on the wire (KCP headers, ACKs, probes and retransmissions; not IP and UDP headers)
          against the payload the clients sent and received, each second.
        </p>
      )}
      <div className="chart-grid">
        {KCP_CHARTS.map((chart) => (
          <SeriesChart key={chart.testId} {...chart} points={points} span={span} markers={markers} />
        ))}
      </div>
    </section>
  );
}
