import os from "node:os";
import { secretsFromEnv } from "./cli/standalone-secrets";

export const IO_PREFERENCES = ["auto", "native", "node"] as const;
/** THRONG_IO: the load sockets' I/O path (transports/native-io.ts); auto takes the native one when it is built. */
export type IoPreference = (typeof IO_PREFERENCES)[number];

/** Everything the agent takes from its environment; read once, in cli/main.ts. */
export interface AgentEnv {
  /** XDG_CONFIG_HOME, where the credential file lives (default ~/.config). */
  configHome: string | undefined;
  homeDir: string;
  io: IoPreference;
  /** THRONG_SECRET_<NAME>: the values `throng-agent run` writes in for a plan's {{secrets.NAME}}. */
  secrets: Record<string, string>;
}

/**
 * Parses the agent's environment. No zod here on purpose: an optional path and one choice of three do not justify
 * a second copy of the schema library's API in the agent's own code (protocol still bundles it).
 */
export function readAgentEnv(env: NodeJS.ProcessEnv): AgentEnv {
  const configHome = env.XDG_CONFIG_HOME?.trim();
  const io = env.THRONG_IO?.trim() || "auto";
  if (!IO_PREFERENCES.includes(io as IoPreference))
    throw new Error(`THRONG_IO must be one of ${IO_PREFERENCES.join(", ")}, not "${io}"`);
  return {
    configHome: configHome ? configHome : undefined,
    homeDir: os.homedir(),
    io: io as IoPreference,
    secrets: secretsFromEnv(env),
  };
}
