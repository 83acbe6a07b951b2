"use client";

import { useSearchParams } from "next/navigation";
import { useApiQuery } from "../hooks/use-api-query";
import { api } from "../lib/api";
import { queryKeys } from "../lib/query-keys";
import { draftFromInput, emptyDraft } from "../lib/plan-draft";
import { cloneName } from "../lib/plan-text";
import { PlanEditor } from "./plan-editor";

/** /plans/new: a blank plan, or with ?from=<plan id> a copy of that plan under a new name. */
export function PlanNew() {
  const from = useSearchParams().get("from");
  if (!from) {
    return <PlanEditor initial={emptyDraft()} title="New plan" intro="Where the load goes, what every client does, and how many clients for how long." />;
  }
  return <PlanClone planId={from} />;
}

function PlanClone({ planId }: { planId: string }) {
  // The plan and the active plans' names (the copy's name must be new among them), from the cache the plan pages share.
  const plan = useApiQuery(queryKeys.plan(planId), (signal) => api.getPlan(planId, signal));
  const plans = useApiQuery(queryKeys.plans("active"), (signal) => api.listPlans(signal, "active"));
  const error = plan.error ?? plans.error;
  if (error) {
    return (
      <p className="alert" role="alert">
        Could not load the plan to copy: {error}
      </p>
    );
  }
  if (!plan.data || !plans.data) return <p className="loading">Loading the plan to copy…</p>;
  const names = plans.data.map((candidate) => candidate.name);
  const initial = draftFromInput({ ...plan.data.spec, name: cloneName(plan.data.name, names) });
  return <PlanEditor key={planId} initial={initial} title={`Copy of ${plan.data.name}`} intro="Change what you need and save it as a new plan; the original stays as it is." />;
}
