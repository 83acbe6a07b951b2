"use client";

import { exportFileName, planToText, type PlanFormat } from "../../lib/plans/plan-text";

/** Saves a plan as a .plan.json / .plan.yaml file through the browser's download. */
export function downloadPlan(input: Record<string, unknown>, format: PlanFormat) {
  const type = format === "json" ? "application/json" : "application/yaml";
  const url = URL.createObjectURL(new Blob([planToText(input, format)], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = exportFileName(String(input.name ?? "plan"), format);
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
