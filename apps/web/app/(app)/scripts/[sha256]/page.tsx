import type { Metadata } from "next";
import { ScriptDetail } from "../../../../components/scripts/script-detail";
import "../scripts.css";

export const metadata: Metadata = { title: "Script" };

export default async function ScriptPage({ params }: { params: Promise<{ sha256: string }> }) {
  const { sha256 } = await params;
  return <ScriptDetail sha256={sha256} />;
}
