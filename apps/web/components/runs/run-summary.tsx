import { RunSummary as RunSummarySchema, type RunView } from "@throng/protocol/run";
import { formatDuration, formatInteger, formatMs, formatRate } from "../../lib/shared/format";
import { percentileKeys } from "../../lib/charts/series";
import { scriptSummaryCells } from "../../lib/runs/series-script";
import {
  countsMessages,
  hasRoundTrips,
  scenarioSummaryCells,
  type ScenarioKind,
  type SummaryCell,
} from "../../lib/runs/scenario-view";
import { notPassedReasons } from "../../lib/shared/verdict";
import { useApiQuery } from "../../hooks/use-api-query";
import type { ViewRange } from "../../lib/charts/view-range";
import { rangeText, useChartZoom, type ChartZoom } from "../charts/chart-zoom";
import { RunCohorts } from "./run-cohorts";
import { RunEvents } from "./run-events";

type Summary = NonNullable<RunView["summary"]>;

type Cell = SummaryCell;

// Every round-trip percentile the summary schema carries (p90 joins when the API computes it).
const RTT_CELLS = percentileKeys(RunSummarySchema.shape);

/**
 * The scenario's own figures first (broadcast, logins); round-trip times only for scenarios that make round trips;
 * message counts only for scenarios whose messages the engine counts (not a script's).
 */
function cells(summary: Summary, kind: ScenarioKind): Cell[] {
  const rtt = !hasRoundTrips(kind)
    ? []
    : RTT_CELLS.map(({ key, label }) => ({
        label: `RTT ${label}`,
        value: formatMs((summary as unknown as Record<string, number | null>)[key]),
        testId: `summary-rtt-${label.replace(".", "_")}`,
      }));
  return [
    ...scenarioSummaryCells(kind, summary),
    { label: "Agents", value: formatInteger(summary.agents), testId: "summary-agents" },
    { label: "Duration", value: formatDuration(summary.durationSec), testId: "summary-duration" },
    { label: "Peak clients", value: formatInteger(summary.peakClients), testId: "summary-peak-clients" },
    { label: "Peak connections", value: formatInteger(summary.peakConnections), testId: "summary-peak-connections" },
    ...(!countsMessages(kind)
      ? []
      : [
          { label: "Messages/s", value: formatRate(summary.messagesPerSec), testId: "summary-messages-per-sec" },
          { label: "Messages sent", value: formatInteger(summary.messagesSent), testId: "summary-messages-sent" },
          {
            label: "Messages received",
            value: formatInteger(summary.messagesReceived),
            testId: "summary-messages-received",
          },
        ]),
    ...rtt,
    {
      label: "Connection failures",
      value: formatInteger(summary.connectionsFailed),
      testId: "summary-connections-failed",
    },
    // Beside the connects that failed, the open connections the server ended: a server that died reads here.
    ...(summary.connectionsDropped === undefined
      ? []
      : [
          {
            label: "Connections dropped",
            value: formatInteger(summary.connectionsDropped),
            testId: "summary-connections-dropped",
          },
        ]),
    { label: "Errors", value: formatInteger(summary.errors), testId: "summary-errors" },
    ...scriptSummaryCells(summary),
  ];
}

/** Why an ended run is not a pass, in words, where it ended (not only in its badge's title), each reason once. */
function VerdictReasons({ run }: { run: RunView }) {
  const reasons = notPassedReasons(run);
  if (reasons.length === 0) return null;
  return (
    <div className={run.status === "failed" ? "alert" : undefined} data-testid="run-verdict-reasons">
      {run.status === "failed" && <p data-testid="summary-error">The run failed:</p>}
      <ul className="verdict-reasons" aria-label="Why the run did not pass">
        {reasons.map((reason) => (
          <li key={reason}>{reason}</li>
        ))}
      </ul>
    </div>
  );
}

function SummaryCells({ summary, kind }: { summary: Summary; kind: ScenarioKind }) {
  return (
    <dl className="summary-grid">
      {cells(summary, kind).map((cell) => (
        <div key={cell.testId}>
          <dt>{cell.label}</dt>
          <dd data-testid={cell.testId}>{cell.value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The figures of the zoomed range, recomputed by the API from the range's stored histograms. */
function RangeSummary({ zoom, range, kind }: { zoom: ChartZoom; range: ViewRange; kind: ScenarioKind }) {
  const answer = useApiQuery(zoom.summaryKey(range), (signal) => zoom.loadSummary(range, signal), {
    keepPrevious: true,
  });
  if (answer.error)
    return (
      <p className="alert" role="alert">
        {answer.error}
      </p>
    );
  if (!answer.data) return <p className="loading">Summing up {rangeText(range)}…</p>;
  if (!answer.data.summary)
    return (
      <p className="muted" data-testid="summary-range-empty">
        No second was measured between {rangeText(range)}.
      </p>
    );
  return <SummaryCells summary={answer.data.summary} kind={kind} />;
}

/**
 * The summary of a finished, aborted or failed run: why it did not pass, totals, then what happened. In the report
 * (`inReport`) the reasons are left to its sentence and Verdict section, which say them above. With the page's
 * charts zoomed, the figures are the zoomed range's.
 */
export function RunSummary({ run, inReport = false }: { run: RunView; inReport?: boolean }) {
  const { summary } = run;
  const zoom = useChartZoom();
  const range = zoom?.range ?? null;
  return (
    <section
      className="panel"
      aria-labelledby="summary-title"
      data-testid="run-summary"
      data-range={range ? `${range.from}-${range.to}` : undefined}
    >
      <h2 id="summary-title">Summary{range && <span data-testid="summary-range"> for {rangeText(range)}</span>}</h2>
      {!inReport && <VerdictReasons run={run} />}
      {zoom && range ? (
        <RangeSummary zoom={zoom} range={range} kind={run.spec.scenario.kind} />
      ) : summary ? (
        <SummaryCells summary={summary} kind={run.spec.scenario.kind} />
      ) : (
        <p className="muted">{run.status === "failed" ? "Nothing was measured." : "Computing the summary…"}</p>
      )}
      <RunCohorts run={run} />
      <RunEvents run={run} />
    </section>
  );
}
