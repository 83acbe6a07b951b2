"use client";

import { useFreshRead } from "../../hooks/use-fresh-read";
import { api } from "../../lib/shared/api";
import { queryKeys } from "../../lib/shared/query-keys";
import { draftFromInput } from "../../lib/plans/plan-draft";
import { PlanEditor } from "./plan-editor";

/**
 * /plans/<id>/edit: the plan editor loaded with the plan as saved now; saving adds a version, and past runs keep
 * theirs. A save from an older version meets the API's conflict, whose Reload reads the plan again.
 */
export function PlanEdit({ planId }: { planId: string }) {
  const plan = useFreshRead(
    (read) => queryKeys.planToEdit(planId, read),
    (signal) => api.getPlan(planId, signal),
  );
  if (plan.error) {
    return (
      <p className="alert" role="alert">
        Could not load the plan to edit: {plan.error}
      </p>
    );
  }
  if (!plan.data) return <p className="loading">Loading the plan…</p>;
  const version = plan.data.version ?? 1;
  return (
    <PlanEditor
      key={plan.read}
      initial={draftFromInput(plan.data.spec)}
      title={`Edit ${plan.data.name}`}
      intro={`Editing version ${version}. Saving makes version ${version + 1}; runs already made keep the version they ran.`}
      edit={{ planId, version, onReload: plan.again }}
    />
  );
}
