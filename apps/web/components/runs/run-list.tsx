"use client";

import Link from "next/link";
import type { RunView } from "@throng/protocol/run";
import {
  formatDate,
  formatDuration,
  formatInteger,
  formatMs,
  formatRate,
  formatTimeOfDay,
} from "../../lib/shared/format";
import { listedDurationSeconds } from "../../lib/shared/run-timing";
import { personName } from "../../lib/runs/people";
import { statusTone, verdictBadge, verdictTitle } from "../../lib/shared/verdict";
import { RunTags } from "./run-tags";
import { DataTable, numeric, type DataColumn } from "../ui/data-table";
import { StatusBadge } from "../ui/status-badge";

const RUN_COLUMNS: readonly DataColumn[] = [
  "Plan",
  "Status",
  "Verdict",
  "Created",
  ...numeric("Duration", "Clients", "Messages/s", "RTT p99", "Errors"),
];

/** One page of runs, each linking to its page, with the headline numbers of those that ended. */
export function RunList({ runs, now }: { runs: RunView[]; now: number }) {
  return (
    <DataTable caption="Runs" columns={RUN_COLUMNS} testId="run-list">
      {runs.map((run) => (
        <tr
          key={run.id}
          data-testid="run-row"
          data-run-id={run.id}
          data-status={run.status}
          data-plan-id={run.planId}
          data-tags={run.tags.join(" ")}
        >
          <td>
            <Link href={`/runs/${run.id}`}>{run.planName}</Link>
            {run.events.length > 0 && (
              <div className="muted small">{run.events.length === 1 ? "1 event" : `${run.events.length} events`}</div>
            )}
            <RunTags tags={run.tags} />
          </td>
          <td>
            <StatusBadge status={run.status} tone={statusTone(run)} />
          </td>
          <td
            className="nowrap"
            title={verdictTitle(run)}
            data-testid="run-verdict"
            data-outcome={run.verdict?.outcome ?? ""}
          >
            <RunVerdictBadge run={run} />
          </td>
          <td>
            {/* Day and time may part onto two lines, so the list still fits a 1024 px window beside a long plan name. */}
            <span className="nowrap">{formatDate(run.createdAt)},</span>{" "}
            <span className="nowrap">{formatTimeOfDay(Date.parse(run.createdAt) / 1000)}</span>
            {run.startedBy && (
              <div className="muted small" data-testid="run-started-by" title={run.startedBy}>
                by {personName(run.startedBy, run.startedByName)}
              </div>
            )}
          </td>
          <td className="num">{formatDuration(listedDurationSeconds(run, now))}</td>
          <td className="num">{formatInteger(run.summary?.peakClients ?? run.spec.load.clients)}</td>
          <td className="num">{run.summary ? formatRate(run.summary.messagesPerSec) : "—"}</td>
          <td className="num">{formatMs(run.summary?.rttP99Ms)}</td>
          <td className="num">
            {run.summary ? formatInteger(run.summary.errors + run.summary.connectionsFailed) : "—"}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

/** Who started a run, short enough for a column: an email's name part (the whole one in the title), a token as it is. */
function RunVerdictBadge({ run }: { run: RunView }) {
  const badge = verdictBadge(run.verdict);
  return badge ? <StatusBadge status={badge.label} tone={badge.tone} /> : <span className="muted">—</span>;
}
