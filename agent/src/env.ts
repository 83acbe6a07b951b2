import os from "node:os";

/** Everything the agent takes from its environment; read once, in cli/main.ts. */
export interface AgentEnv {
  /** XDG_CONFIG_HOME, where the credential file lives (default ~/.config). */
  configHome: string | undefined;
  homeDir: string;
}

/**
 * Parses the agent's environment. No zod here on purpose: one optional path does not justify
 * a second copy of the schema library's API in the agent's own code (protocol still bundles it).
 */
export function readAgentEnv(env: NodeJS.ProcessEnv): AgentEnv {
  const configHome = env.XDG_CONFIG_HOME?.trim();
  return { configHome: configHome ? configHome : undefined, homeDir: os.homedir() };
}
