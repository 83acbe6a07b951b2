"use client";

import { useSearchParams } from "next/navigation";
import { useFreshRead } from "../../hooks/use-fresh-read";
import { api } from "../../lib/shared/api";
import { queryKeys } from "../../lib/shared/query-keys";
import { draftFromInput, emptyDraft } from "../../lib/plans/plan-draft";
import { cloneName } from "../../lib/plans/plan-text";
import { PlanEditor } from "./plan-editor";

/** /plans/new: a blank plan, or with ?from=<plan id> a copy of that plan under a new name. */
export function PlanNew() {
  const from = useSearchParams().get("from");
  if (!from) {
    return (
      <PlanEditor
        initial={emptyDraft()}
        title="New plan"
        intro="Where the load goes, what every client does, and how many clients for how long."
      />
    );
  }
  return <PlanClone planId={from} />;
}

function PlanClone({ planId }: { planId: string }) {
  const { data, error } = useFreshRead(
    (read) => queryKeys.planToCopy(planId, read),
    async (signal) => {
      const [plan, plans] = await Promise.all([api.getPlan(planId, signal), api.listPlans(signal)]);
      return { plan, names: plans.map((candidate) => candidate.name) };
    },
  );
  if (error) {
    return (
      <p className="alert" role="alert">
        Could not load the plan to copy: {error}
      </p>
    );
  }
  if (!data) return <p className="loading">Loading the plan to copy…</p>;
  const initial = draftFromInput({ ...data.plan.spec, name: cloneName(data.plan.name, data.names) });
  return (
    <PlanEditor
      key={planId}
      initial={initial}
      title={`Copy of ${data.plan.name}`}
      intro="Change what you need and save it as a new plan; the original stays as it is."
    />
  );
}
