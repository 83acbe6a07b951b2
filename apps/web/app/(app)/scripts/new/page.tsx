import type { Metadata } from "next";
import { ScriptNew } from "../../../../components/scripts/script-new";
import "../scripts.css";

export const metadata: Metadata = { title: "New script" };

/** `?from=<sha256>`: edit a copy of a stored script (saved under its own new hash). */
export default async function NewScriptPage({ searchParams }: { searchParams: Promise<{ from?: string | string[] }> }) {
  const { from } = await searchParams;
  const sha256 = typeof from === "string" && /^[0-9a-fA-F]{64}$/.test(from) ? from.toLowerCase() : undefined;
  return <ScriptNew {...(sha256 ? { from: sha256 } : {})} />;
}
