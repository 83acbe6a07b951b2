import type { Metadata } from "next";
import { TargetList } from "../../../components/target-list";

export const metadata: Metadata = { title: "Targets" };

export default function TargetsPage() {
  return <TargetList />;
}
