import { afterEach, beforeEach } from "vitest";
import type { AgentOptions } from "../connection/agent";
import { startTarget, type RunningTarget } from "../target/target-server";
import { startAgent, tempConfigPath, type RunningAgent } from "./agent-harness";
import { startFakeGateway, type FakeGateway } from "./fake-gateway";

/** What each test of a connected agent starts from: a gateway double, a target to load and a fresh config file. */
export interface AgentBed {
  readonly gateway: FakeGateway;
  readonly target: RunningTarget;
  readonly config: Awaited<ReturnType<typeof tempConfigPath>>;
  /** Runs the agent against this bed's gateway and config file; the bed stops it after the test. */
  startAgent(options?: Partial<AgentOptions>): RunningAgent;
}

/** Registers the hooks that give every test of the calling file its own AgentBed and tear it down after it. */
export function useAgentBed(): AgentBed {
  let parts: Pick<AgentBed, "gateway" | "target" | "config"> | undefined;
  let agent: RunningAgent | undefined;
  const started = () => {
    if (!parts) throw new Error("the agent bed is only there inside a test (useAgentBed registers beforeEach)");
    return parts;
  };
  beforeEach(async () => {
    const [gateway, target, config] = await Promise.all([
      startFakeGateway(),
      startTarget({ port: 0 }),
      tempConfigPath(),
    ]);
    parts = { gateway, target, config };
  });
  afterEach(async () => {
    agent?.stop();
    await agent?.exit.catch(() => undefined);
    agent = undefined;
    const { gateway, target, config } = started();
    parts = undefined;
    await Promise.all([gateway.close(), target.close(), config.cleanup()]);
  });
  return {
    get gateway() {
      return started().gateway;
    },
    get target() {
      return started().target;
    },
    get config() {
      return started().config;
    },
    startAgent(options = {}) {
      const { gateway, config } = started();
      agent = startAgent({ server: gateway.server, configPath: config.path, ...options });
      return agent;
    },
  };
}
