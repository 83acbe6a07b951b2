import { createRequire } from "node:module";

/**
 * Requires one of the agent's native addons (agent/build.mjs builds them): next to the one-file bundle (dist/), or,
 * run from source, in agent/dist/. Without it, why each place failed, for the caller's message saying what to do.
 */
export function requireNativeAddon<Addon>(file: string): { addon: Addon } | { reasons: string } {
  const require = createRequire(import.meta.url);
  const reasons: string[] = [];
  for (const candidate of [`./${file}`, `../dist/${file}`]) {
    try {
      return { addon: require(candidate) as Addon };
    } catch (cause) {
      reasons.push(`${candidate}: ${(cause as Error).message.split("\n")[0]}`);
    }
  }
  return { reasons: reasons.join("; ") };
}
