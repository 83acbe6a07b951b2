"use client";

import Link from "next/link";
import type { PlanView } from "@throng/protocol/api";
import { describeLoad, describeScenario } from "../lib/plan-summary";
import { StartRunButton } from "./start-run-button";

/** Saved plans, each with what it does and a button to run it. */
export function PlanList({ plans }: { plans: PlanView[] }) {
  if (plans.length === 0) {
    return (
      <div className="empty" data-testid="plans-empty">
        <strong>No plans yet — create one to say where the load goes and how much.</strong>
        <Link className="button primary" href="/plans/new">
          New plan
        </Link>
      </div>
    );
  }
  return (
    <div className="table-wrap">
      <table className="data" data-testid="plan-list">
        <caption className="sr-only">Plans</caption>
        <thead>
          <tr>
            <th scope="col">Plan</th>
            <th scope="col">Target</th>
            <th scope="col">Load</th>
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {plans.map((plan) => (
            <tr key={plan.id} data-testid="plan-row" data-plan-id={plan.id} data-plan-name={plan.name}>
              <td>
                <strong>{plan.name}</strong>
              </td>
              <td>
                <code>{plan.spec.target.url}</code>
              </td>
              <td>
                {describeLoad(plan.spec)}
                <div className="muted">{describeScenario(plan.spec)}</div>
              </td>
              <td>
                <StartRunButton planId={plan.id} planName={plan.name} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
