import type { Metadata } from "next";
import { PlanEdit } from "../../../../../components/plans/plan-edit";

export const metadata: Metadata = { title: "Edit plan" };

export default async function EditPlanPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <PlanEdit planId={id} />;
}
