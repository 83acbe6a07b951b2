import type { RunSummary as Summary } from "@throng/protocol/run";
import { formatDuration, formatInteger, formatMs, formatRate } from "../lib/format";

interface Cell {
  label: string;
  value: string;
  testId: string;
}

function cells(summary: Summary): Cell[] {
  return [
    { label: "Agents", value: formatInteger(summary.agents), testId: "summary-agents" },
    { label: "Duration", value: formatDuration(summary.durationSec), testId: "summary-duration" },
    { label: "Peak clients", value: formatInteger(summary.peakClients), testId: "summary-peak-clients" },
    { label: "Peak connections", value: formatInteger(summary.peakConnections), testId: "summary-peak-connections" },
    { label: "Messages/s", value: formatRate(summary.messagesPerSec), testId: "summary-messages-per-sec" },
    { label: "Messages sent", value: formatInteger(summary.messagesSent), testId: "summary-messages-sent" },
    { label: "Messages received", value: formatInteger(summary.messagesReceived), testId: "summary-messages-received" },
    { label: "RTT p50", value: formatMs(summary.rttP50Ms), testId: "summary-rtt-p50" },
    { label: "RTT p99", value: formatMs(summary.rttP99Ms), testId: "summary-rtt-p99" },
    { label: "RTT max", value: formatMs(summary.rttMaxMs), testId: "summary-rtt-max" },
    { label: "Connection failures", value: formatInteger(summary.connectionsFailed), testId: "summary-connections-failed" },
    { label: "Errors", value: formatInteger(summary.errors), testId: "summary-errors" },
  ];
}

/** Totals of a finished, aborted or failed run. */
export function RunSummary({ summary, error }: { summary: Summary | null; error: string | null }) {
  return (
    <section className="panel" aria-labelledby="summary-title" data-testid="run-summary">
      <h2 id="summary-title">Summary</h2>
      {error && (
        <p className="alert" data-testid="summary-error">
          The run failed: {error}
        </p>
      )}
      {summary ? (
        <dl className="summary-grid">
          {cells(summary).map((cell) => (
            <div key={cell.testId}>
              <dt>{cell.label}</dt>
              <dd data-testid={cell.testId}>{cell.value}</dd>
            </div>
          ))}
        </dl>
      ) : (
        <p className="muted">Computing the summary…</p>
      )}
    </section>
  );
}
