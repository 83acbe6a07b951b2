import type { Metadata } from "next";
import { TargetList } from "../../../components/targets/target-list";
import "../runs/[id]/report/report.css";

export const metadata: Metadata = { title: "Targets" };

export default function TargetsPage() {
  return <TargetList />;
}
