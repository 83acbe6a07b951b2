import type { Hello } from "@throng/protocol/agent";
import { enrolTestAgent, type TestAgent } from "./test-agent";
import { startTestApi, type TestApi, type TestUser } from "./test-api";

/** Runs start 50 ms after their job and close only when the test finishes them (a minute of grace for the end and a silent agent). */
export const TEST_CLOSED_BY_TEST = { startDelayMs: 50, finishGraceMs: 60_000, agentLostGraceMs: 60_000 };

export interface ApiWithAgent {
  api: TestApi;
  user: TestUser;
  agent: TestAgent;
  orgId: string;
}

/**
 * The API with one signed-up user (named `userName`) and one agent of the user's organisation past its handshake:
 * what a test that runs a plan and reads the run needs. `options` go to startTestApi (orchestration defaults to
 * TEST_CLOSED_BY_TEST); `hello` overrides the agent's hello (its host, labels).
 */
export async function startApiWithAgent(
  userName: string,
  options: Parameters<typeof startTestApi>[0] = {},
  hello: Partial<Hello> = {},
): Promise<ApiWithAgent> {
  const api = await startTestApi({ orchestration: TEST_CLOSED_BY_TEST, ...options });
  const user = await api.signUp(userName);
  const { agent, ready } = await enrolTestAgent(api.gatewayUrl, user, hello);
  return { api, user, agent, orgId: ready.orgId };
}
