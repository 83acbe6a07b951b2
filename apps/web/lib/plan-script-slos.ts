// A script plan's SLO choices: the metrics its scenario declares, as the SLO schema names them (docs/verdicts.md).
import type { DraftObject } from "./schema-form";

const METRIC_NAME = /^[a-z][a-z0-9-]{0,40}$/;

/** "script:NAME-p50" and "-p99" per declared histogram, "script:NAME-count" per counter; none for other scenarios. */
export function scriptSloMetrics(draft: DraftObject): string[] {
  const scenario = draft.scenario as DraftObject | undefined;
  if (scenario?.kind !== "script" || !Array.isArray(scenario.metrics)) return [];
  return (scenario.metrics as DraftObject[]).flatMap((metric) => {
    const name = typeof metric.name === "string" ? metric.name.trim() : "";
    if (!METRIC_NAME.test(name)) return [];
    if (metric.kind === "histogram") return [`script:${name}-p50`, `script:${name}-p99`];
    return metric.kind === "counter" ? [`script:${name}-count`] : [];
  });
}
