import type { Metadata } from "next";
import { TargetHistory } from "../../../../components/targets/target-history";
import "../../runs/[id]/report/report.css";

export const metadata: Metadata = { title: "Target" };

/** Next may hand the segment over still percent-encoded; a name with a literal "%" must not throw. */
function segment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export default async function TargetPage({ params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  return <TargetHistory name={segment(name)} />;
}
