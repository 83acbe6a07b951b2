import path from "node:path";
import { spawnChild, type Child } from "../../infra/local/child";
import type { Log } from "../../infra/local/log";
import { waitUntil } from "../../infra/local/wait";
import { agentBin, root } from "../fault/support/processes";

/** The agent's CLI run from source through tsx, for files that must not wait for the bundle's build. */
export const agentFromSource = ["--import", "tsx", path.join(root, "agent/src/cli/main.ts")];

/** One `throng-agent connect` process: where it dials, with which token, and where it keeps its credential. */
export interface AgentConnect {
  /** The child's name in logs and failure tails. */
  name: string;
  server: string;
  token: string;
  /** Its HOME; the credential file goes here too unless `config` names another. */
  home: string;
  /** The credential file; `agent.json` in `home` by default. */
  config?: string;
  /** How the agent starts: the shipped bundle by default, or `agentFromSource`. */
  cli?: string[];
  /** Flags after the connection's own: --engines, --label, --allow-target, … */
  args?: string[];
  log?: Log;
}

/** `connect --server … --token … --config …`: the flags every enrolled agent starts with. */
export function agentConnectArgs(server: string, token: string, config: string): string[] {
  return ["connect", "--server", server, "--token", token, "--config", config];
}

/** Starts a real agent that enrols with `token` (or, holding a credential in `config` already, proves it). */
export function spawnAgent(agent: AgentConnect): Child {
  const config = agent.config ?? path.join(agent.home, "agent.json");
  return spawnChild({
    name: agent.name,
    command: process.execPath,
    cwd: root,
    env: { ...process.env, HOME: agent.home },
    args: [...(agent.cli ?? [agentBin]), ...agentConnectArgs(agent.server, agent.token, config), ...(agent.args ?? [])],
    log: agent.log,
  });
}

/**
 * Agent `index` of several sharing one HOME (a test's or a bench's rig of agents): named `agent-<index>`, with a
 * credential file of its own and the label `rig=<index>`, before any flags of `agent.args`.
 */
export function spawnRigAgent(index: number, agent: Omit<AgentConnect, "name" | "config">): Child {
  return spawnAgent({
    ...agent,
    name: `agent-${index}`,
    config: path.join(agent.home, `agent-${index}.json`),
    args: ["--label", `rig=${index}`, ...(agent.args ?? [])],
  });
}

/** A real agent, stopped with the file's other processes; resolves once it printed that it is connected. */
export async function startConnectedAgent(
  agent: Omit<AgentConnect, "log">,
  cleanups: (() => Promise<unknown>)[],
  timeoutMs = 60_000,
): Promise<Child> {
  let connected = false;
  const child = spawnAgent({ ...agent, log: (line) => (connected ||= /connected to \S+ as agent/.test(line)) });
  cleanups.push(() => child.stop("SIGKILL", 1_000));
  await waitUntil(async () => connected, { what: "the agent to connect", timeoutMs, abort: child.diedEarly });
  return child;
}
