import type { AgentHealth } from "@throng/protocol/snapshot";
import { formatInteger } from "../shared/format";

/**
 * An agent's open files for its run table: summed over its engine processes, against their limits together (the
 * limit is per process; at 200,000 clients on 11 engines "200,203 / 20,000" read as ten times over it).
 */
export function openFiles(health: Pick<AgentHealth, "openFds" | "fdLimit" | "engines"> | undefined): {
  text: string;
  title?: string;
} {
  if (health?.openFds === undefined) return { text: "—" };
  if (!health.fdLimit) return { text: formatInteger(health.openFds) };
  const engines = health.engines ?? 1;
  return {
    text: `${formatInteger(health.openFds)} / ${formatInteger(health.fdLimit * engines)}`,
    title:
      engines > 1
        ? `open files over ${engines} engine processes, each limited to ${formatInteger(health.fdLimit)}`
        : `open files, limited to ${formatInteger(health.fdLimit)}`,
  };
}
