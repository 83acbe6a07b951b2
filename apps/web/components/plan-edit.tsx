"use client";

import { useState } from "react";
import type { PlanView } from "@throng/protocol/api";
import { useApiQuery } from "../hooks/use-api-query";
import { api } from "../lib/api";
import { queryKeys } from "../lib/query-keys";
import { draftFromInput } from "../lib/plan-draft";
import { PlanEditor } from "./plan-editor";

/** Every read of a plan for editing gets its own cache key, so an edit never starts from a cached older version. */
let reads = 0;

/** /plans/<id>/edit: the plan editor loaded with the plan; saving adds a version, and past runs keep theirs. */
export function PlanEdit({ planId }: { planId: string }) {
  const [read, setRead] = useState(() => ++reads);
  const plan = useApiQuery(queryKeys.planToEdit(planId, read), (signal) => api.getPlan(planId, signal));
  // The editor keeps the first answer of its read: a later refetch (the window regaining focus) must not swap the
  // draft's base under the user. A save from an older version meets the API's conflict, whose Reload reads again.
  const [base, setBase] = useState<{ read: number; plan: PlanView } | null>(null);
  if (plan.data && base?.read !== read) setBase({ read, plan: plan.data });
  const started = base?.read === read;
  if (plan.error && !started) {
    return (
      <p className="alert" role="alert">
        Could not load the plan to edit: {plan.error}
      </p>
    );
  }
  if (!base || !started) return <p className="loading">Loading the plan…</p>;
  const version = base.plan.version ?? 1;
  return (
    <PlanEditor
      key={read}
      initial={draftFromInput(base.plan.spec)}
      title={`Edit ${base.plan.name}`}
      intro={`Editing version ${version}. Saving makes version ${version + 1}; runs already made keep the version they ran.`}
      edit={{ planId, version, onReload: () => setRead(++reads) }}
    />
  );
}
