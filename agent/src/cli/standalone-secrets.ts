import { readFile } from "node:fs/promises";
import type { PlanSpec } from "@throng/protocol/plan";
import { secretNamesUsed, secretsUsed } from "@throng/protocol/plan-secrets";
import { SECRET_NAME_PATTERN } from "@throng/protocol/secrets";

/** The environment variable a standalone run reads a secret from: THRONG_SECRET_<NAME>. */
export const SECRET_ENV_PREFIX = "THRONG_SECRET_";

/** A secret the plan names has no value, or the secrets file cannot be read: a usage error (exit 2), before any load. */
export class SecretsError extends Error {}

/** THRONG_SECRET_<NAME> variables as names to values (read once, in main.ts, with the rest of the agent's environment). */
export function secretsFromEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    const name = key.slice(SECRET_ENV_PREFIX.length);
    if (key.startsWith(SECRET_ENV_PREFIX) && SECRET_NAME_PATTERN.test(name) && value !== undefined)
      values[name] = value;
  }
  return values;
}

/**
 * A secrets file: one `NAME=value` a line (the value as written up to the line's end; one pair of surrounding quotes
 * is dropped), blank lines and lines starting with # ignored. Throws naming the file and line of a malformed one,
 * never its text (it may be a value).
 */
export function parseSecretsFile(text: string, path: string): Record<string, string> {
  const values: Record<string, string> = {};
  text.split(/\r?\n/).forEach((line, index) => {
    if (!line.trim() || line.trimStart().startsWith("#")) return;
    const at = line.indexOf("=");
    const name = line
      .slice(0, at)
      .trim()
      .replace(/^export\s+/, "");
    if (at <= 0 || !SECRET_NAME_PATTERN.test(name))
      throw new SecretsError(`error: ${path} line ${index + 1}: expected NAME=value, NAME of letters, digits and _`);
    const value = line.slice(at + 1);
    values[name] = /^(["']).*\1$/.test(value) && value.length >= 2 ? value.slice(1, -1) : value;
  });
  return values;
}

/**
 * The values of the secrets the plan names, from the environment (THRONG_SECRET_<NAME>, which wins) and the secrets
 * file; only those the plan uses. Throws a SecretsError naming each missing secret and where the plan uses it.
 */
export async function standaloneSecrets(
  plan: PlanSpec,
  sources: { env: Readonly<Record<string, string>>; file?: string },
): Promise<Record<string, string>> {
  const names = secretNamesUsed(plan);
  if (names.length === 0) return {};
  let fromFile: Record<string, string> = {};
  if (sources.file) {
    let text: string;
    try {
      text = await readFile(sources.file, "utf8");
    } catch (error) {
      throw new SecretsError(
        `error: cannot read the secrets file ${sources.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
    fromFile = parseSecretsFile(text, sources.file);
  }
  const values: Record<string, string> = {};
  for (const name of names) {
    const value = sources.env[name] ?? fromFile[name];
    if (value !== undefined) values[name] = value;
  }
  const missing = secretsUsed(plan).filter((use) => values[use.name] === undefined);
  if (missing.length === 0) return values;
  const lines = [...new Set(missing.map((use) => use.name))].map((name) => {
    const where = missing
      .filter((use) => use.name === name)
      .map((use) => use.path)
      .join(", ");
    return `  {{secrets.${name}}} (${where}): set ${SECRET_ENV_PREFIX}${name}${sources.file ? `, or add ${name}=… to ${sources.file}` : ", or give it in a file with --secrets-file"}`;
  });
  throw new SecretsError(
    `error: the plan names ${lines.length === 1 ? "a secret" : "secrets"} with no value:\n${lines.join("\n")}`,
  );
}
