import type { Metadata } from "next";
import { ScriptNew } from "../../../../components/script-new";
import "../scripts.css";

export const metadata: Metadata = { title: "New script" };

export default function NewScriptPage() {
  return <ScriptNew />;
}
