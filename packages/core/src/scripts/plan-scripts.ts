import { ThrongError } from "@throng/protocol/errors";
import type { PlanSpec } from "@throng/protocol/plan";

export const SCRIPT_PATH_REFUSED =
  "a path names a file on the agent's host and only works with throng-agent run; upload the script (throng script upload, or the Scripts page) and reference it by sha256";
export const SCRIPT_NOT_STORED =
  "no script bundle with this SHA-256 in your organisation: upload it first (throng script upload, or the Scripts page)";

/** The bundle a plan runs, lower-cased (the store's form), or undefined for a plan without one. */
export function planScriptSha256(spec: PlanSpec): string | undefined {
  const { scenario } = spec;
  return scenario.kind === "script" && "sha256" in scenario.script ? scenario.script.sha256.toLowerCase() : undefined;
}

/**
 * Refuses a script plan the control plane cannot run: a script by path (a file only the standalone agent can read),
 * or a hash the organisation has not uploaded. `stored` answers whether the org holds a bundle.
 */
export async function assertPlanScriptStored(
  spec: PlanSpec,
  stored: (sha256: string) => Promise<boolean>,
): Promise<void> {
  const { scenario } = spec;
  if (scenario.kind !== "script") return;
  if ("path" in scenario.script) {
    throw new ThrongError("validation_failed", `Invalid plan (scenario.script.path: ${SCRIPT_PATH_REFUSED})`, [
      { path: "scenario.script.path", message: SCRIPT_PATH_REFUSED },
    ]);
  }
  if (await stored(scenario.script.sha256.toLowerCase())) return;
  throw new ThrongError("validation_failed", `Invalid plan (scenario.script.sha256: ${SCRIPT_NOT_STORED})`, [
    { path: "scenario.script.sha256", message: SCRIPT_NOT_STORED },
  ]);
}
