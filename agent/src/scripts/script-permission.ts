import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { AgentCapabilities } from "@throng/protocol/agent";
import type { Scenario } from "@throng/protocol/plan";

/** What the agent's owner allows (`--allow-scripts`): any script, or only bundles with these SHA-256s. Undefined: none. */
export type ScriptPermission = { any: true } | { sha256: string[] };

export const NO_SCRIPTS =
  "this agent does not run scripts: start it with --allow-scripts (or --allow-scripts <sha256> to allow one bundle)";
export const NO_SCRIPT_STORE =
  "a script by sha256 is fetched from the control plane by throng-agent connect; throng-agent run takes script: { path: file.mjs }";

const SHA256 = /^[0-9a-f]{64}$/;

/** The permission as the hello says it (PROTOCOL.md §2.10): "none", "any" or the allowed bundles. */
export function scriptCapability(permission: ScriptPermission | undefined): AgentCapabilities["scripts"] {
  if (!permission) return "none";
  return "any" in permission ? "any" : { sha256: permission.sha256 };
}

/** `--allow-scripts` given bare (true) or with a comma-separated list of SHA-256s; throws naming a bad entry. */
export function parseScriptPermission(value: true | string): ScriptPermission {
  if (value === true) return { any: true };
  const sha256 = value
    .split(",")
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);
  const bad = sha256.find((item) => !SHA256.test(item));
  if (bad !== undefined || sha256.length === 0)
    throw new Error(
      `--allow-scripts takes SHA-256s (64 hex digits, comma-separated)${bad !== undefined ? `: "${bad}" is not one` : ""}`,
    );
  return { sha256 };
}

/**
 * Null when the scenario may run here (not a script, or a script the permission covers), else why not. A script
 * given by path is allowed by a hash list when the file's own SHA-256 is on it; one by sha256 when that hash is. Checked
 * before a bundle is fetched, so a refused script is never downloaded.
 */
export async function scriptRefusal(
  scenario: Scenario,
  permission: ScriptPermission | undefined,
): Promise<string | null> {
  if (scenario.kind !== "script") return null;
  if (!permission) return NO_SCRIPTS;
  const { script } = scenario;
  if ("sha256" in script) {
    const hash = script.sha256.toLowerCase();
    if ("sha256" in permission && !permission.sha256.includes(hash))
      return `script bundle ${hash} is not on this agent's --allow-scripts list`;
    return null;
  }
  if ("any" in permission) return null;
  let hash: string;
  try {
    hash = createHash("sha256")
      .update(await readFile(script.path))
      .digest("hex");
  } catch (error) {
    return `cannot read script ${script.path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
  }
  return permission.sha256.includes(hash)
    ? null
    : `script ${script.path} (SHA-256 ${hash}) is not on this agent's --allow-scripts list`;
}
