"use client";

import { useState } from "react";
import { useApiData } from "../hooks/use-api-data";
import { api } from "../lib/api";
import { draftFromInput } from "../lib/plan-draft";
import { PlanEditor } from "./plan-editor";

/** /plans/<id>/edit: the plan editor loaded with the plan; saving adds a version, and past runs keep theirs. */
export function PlanEdit({ planId }: { planId: string }) {
  const plan = useApiData((signal) => api.getPlan(planId, signal));
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
    setLoads((count) => count + 1);
    plan.reload();
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
