"use client";

import Link from "next/link";
import type { PlanView } from "@throng/protocol/api";
import { can } from "../../lib/shared/settings-permissions";
import { describeAgents, describeLoad, describeScenario, describeTarget } from "../../lib/plans/plan-summary";
import { formatAgo, shortId } from "../../lib/shared/format";
import { nextFiringText } from "../../lib/schedules/schedules";
import { outcomeLabel } from "../../lib/shared/verdict";
import { DataTable } from "../ui/data-table";
import { useMe } from "../shell/session-gate";
import { StartRunButton } from "../runs/start-run-button";
import { StatusBadge } from "../ui/status-badge";

/** Saved plans, each with what it does, a way to run it and a way to copy it. */
export function PlanList({ plans }: { plans: PlanView[] }) {
  const { role } = useMe();
  if (plans.length === 0) {
    return (
      <div className="empty" data-testid="plans-empty">
        <strong>No plans yet.</strong>
        <p>
          A plan says where the load goes and how much. Create one, or import a plan file (YAML or JSON) in the editor.
        </p>
        {can(role, "plan.write") && (
          <Link className="button primary" href="/plans/new">
            New plan
          </Link>
        )}
      </div>
    );
  }
  return (
    <DataTable
      caption="Plans"
      columns={["Plan", "Target", "Load", "Last run", "Baseline", "Next run", ""]}
      testId="plan-list"
    >
      {plans.map((plan) => (
        <tr key={plan.id} data-testid="plan-row" data-plan-id={plan.id} data-plan-name={plan.name}>
          <td>
            <Link href={`/plans/${plan.id}`}>
              <strong>{plan.name}</strong>
            </Link>
            {plan.archivedAt && (
              <>
                {" "}
                <StatusBadge status="archived" tone="idle" testId="plan-archived-badge" />
              </>
            )}
            <div className="muted small">{describeAgents(plan.spec)}</div>
          </td>
          <td>
            <code>{describeTarget(plan.spec)}</code>
          </td>
          <td>
            {describeLoad(plan.spec)}
            <div className="muted small">{describeScenario(plan.spec)}</div>
          </td>
          <td data-testid="plan-last-run" data-outcome={plan.lastRun?.outcome ?? ""}>
            {plan.lastRun ? (
              <>
                <Link href={`/runs/${plan.lastRun.id}`}>
                  {plan.lastRun.outcome ? outcomeLabel(plan.lastRun.outcome) : plan.lastRun.status}
                </Link>
                {plan.lastRun.endedAt && <div className="muted small">{formatAgo(plan.lastRun.endedAt)}</div>}
              </>
            ) : (
              <span className="muted">not run yet</span>
            )}
          </td>
          <td data-testid="plan-baseline-cell">
            {plan.baselineRunId ? (
              <Link href={`/runs/${plan.baselineRunId}`}>run {shortId(plan.baselineRunId)}</Link>
            ) : (
              <span className="muted">none</span>
            )}
          </td>
          <td data-testid="plan-next-run" data-paused={plan.nextScheduledRun?.paused ? "true" : "false"}>
            {plan.nextScheduledRun ? (
              <Link
                href="/schedules"
                title={`Scheduled (${plan.nextScheduledRun.timezone}); all schedules on the Schedules page`}
              >
                {nextFiringText(plan.nextScheduledRun)}
              </Link>
            ) : (
              <span className="muted">not scheduled</span>
            )}
          </td>
          <td className="actions">
            {can(role, "plan.write") && (
              <Link className="button small" href={`/plans/new?from=${plan.id}`} aria-label={`Clone ${plan.name}`}>
                Clone
              </Link>
            )}
            {can(role, "run.start") && <StartRunButton planId={plan.id} planName={plan.name} small />}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
