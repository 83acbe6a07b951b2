import type { Metadata } from "next";
import { TargetHistory } from "../../../../components/target-history";
import "../../runs/[id]/report/report.css";

export const metadata: Metadata = { title: "Target" };

export default async function TargetPage({ params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  return <TargetHistory name={decodeURIComponent(name)} />;
}
