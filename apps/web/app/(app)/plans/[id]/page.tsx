import type { Metadata } from "next";
import { PlanDetail } from "../../../../components/plans/plan-detail";
import "./plan-trend.css";

export const metadata: Metadata = { title: "Plan" };

export default async function PlanPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <PlanDetail planId={id} />;
}
