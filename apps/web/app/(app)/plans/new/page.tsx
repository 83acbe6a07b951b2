import type { Metadata } from "next";
import { Suspense } from "react";
import { PlanNew } from "../../../../components/plans/plan-new";

export const metadata: Metadata = { title: "New plan" };

export default function NewPlanPage() {
  return (
    <Suspense fallback={<p className="loading">Loading…</p>}>
      <PlanNew />
    </Suspense>
  );
}
