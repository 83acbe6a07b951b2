// {{run}}: a short id of the run, so two runs against one server keep their clients' names apart
// ("bot-{{run}}-{{client}}"). The agent writes it into the plan's texts once per shard, before anything is compiled.
import type { PlanSpec } from "./plan";

const RUN_PLACEHOLDER = /\{\{run\}\}/g;

/** The run's tag: the first 8 hex digits of its id (a UUID), the same on every agent and engine of the run. */
export function runTag(runId: string): string {
  return runId.replace(/-/g, "").slice(0, 8).toLowerCase();
}

/**
 * The plan with every {{run}} in its target and scenario (templates, session and http steps, headers, urls, respond
 * and leave steps) replaced by `tag`. A tag is hex digits, so the JSON round trip needs no escaping; a plan without
 * {{run}} is returned as it is.
 */
export function withRunTag<P extends Pick<PlanSpec, "target" | "scenario">>(plan: P, tag: string): P {
  if (!/^[0-9a-f]+$/.test(tag)) throw new Error(`a run tag is hex digits, not "${tag}"`);
  const fill = <T>(value: T): T => {
    const text = JSON.stringify(value);
    return text.includes("{{run}}") ? (JSON.parse(text.replace(RUN_PLACEHOLDER, tag)) as T) : value;
  };
  const target = fill(plan.target);
  const scenario = fill(plan.scenario);
  return target === plan.target && scenario === plan.scenario ? plan : { ...plan, target, scenario };
}
