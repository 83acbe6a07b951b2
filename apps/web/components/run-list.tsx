"use client";

import Link from "next/link";
import type { RunView } from "@throng/protocol/run";
import { formatDateTime, formatDuration } from "../lib/format";
import { listedDurationSeconds } from "../lib/run-timing";
import { runTone } from "../lib/status";
import { StatusBadge } from "./status-badge";

/** Runs, newest first, each linking to its page. */
export function RunList({ runs, now }: { runs: RunView[]; now: number }) {
  if (runs.length === 0) {
    return (
      <div className="empty" data-testid="runs-empty">
        <strong>No runs yet — start one from a plan.</strong>
        <Link className="button primary" href="/plans">
          Go to plans
        </Link>
      </div>
    );
  }
  return (
    <div className="table-wrap">
      <table className="data" data-testid="run-list">
        <caption className="sr-only">Runs</caption>
        <thead>
          <tr>
            <th scope="col">Plan</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
            <th scope="col" className="num">Duration</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.id} data-testid="run-row" data-run-id={run.id} data-status={run.status}>
              <td>
                <Link href={`/runs/${run.id}`}>{run.planName}</Link>
              </td>
              <td>
                <StatusBadge status={run.status} tone={runTone(run.status)} />
              </td>
              <td>{formatDateTime(run.createdAt)}</td>
              <td className="num">{formatDuration(listedDurationSeconds(run, now))}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
