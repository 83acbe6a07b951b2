import type { Metadata } from "next";
import { ReportView } from "../../../../../components/reports/report-view";
import "./report.css";

export const metadata: Metadata = { title: "Report" };

export default async function ReportPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ReportView runId={id} />;
}
