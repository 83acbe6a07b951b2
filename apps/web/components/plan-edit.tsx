"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useApiQuery } from "../hooks/use-api-query";
import { api } from "../lib/api";
import { queryKeys } from "../lib/query-keys";
import { draftFromInput } from "../lib/plan-draft";
import { PlanEditor } from "./plan-editor";

/** /plans/<id>/edit: the plan editor loaded with the plan; saving adds a version, and past runs keep theirs. */
export function PlanEdit({ planId }: { planId: string }) {
  const queryClient = useQueryClient();
  const plan = useApiQuery(queryKeys.plan(planId), (signal) => api.getPlan(planId, signal));
  const [loads, setLoads] = useState(0);
  if (plan.error) {
    return (
      <p className="alert" role="alert">
        Could not load the plan to edit: {plan.error}
      </p>
    );
  }
  if (!plan.data) return <p className="loading">Loading the plan…</p>;
  const version = plan.data.version ?? 1;
  const reload = () => {
    // After a conflict: read the plan (and its versions) as saved now, and start the editor again from it.
    setLoads((count) => count + 1);
    void queryClient.invalidateQueries({ queryKey: queryKeys.plan(planId) });
  };
  return (
    <PlanEditor
      key={`${version}-${loads}`}
      initial={draftFromInput(plan.data.spec)}
      title={`Edit ${plan.data.name}`}
      intro={`Editing version ${version}. Saving makes version ${version + 1}; runs already made keep the version they ran.`}
      edit={{ planId, version, onReload: reload }}
    />
  );
}
