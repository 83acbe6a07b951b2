import type { Metadata } from "next";
import { CompareView } from "../../../components/compare/compare-view";
import { parseCompareIds } from "../../../lib/compare/compare-table";
import "./compare.css";

export const metadata: Metadata = { title: "Compare runs" };

export default async function ComparePage({ searchParams }: { searchParams: Promise<{ ids?: string | string[] }> }) {
  const ids = parseCompareIds((await searchParams).ids);
  // Keyed by the ids so a new comparison loads afresh.
  return <CompareView key={ids.join(",")} ids={ids} />;
}
