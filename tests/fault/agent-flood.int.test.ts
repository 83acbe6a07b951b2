import { beforeAll, describe, expect, it } from "vitest";
import { AGENT_GATEWAY_PATH } from "@throng/protocol/agent";
import type { Child } from "../../infra/local/child";
import { freePort } from "../../infra/local/ports";
import { waitUntil } from "../../infra/local/wait";
import { signUp, waitForAgents, type Browser } from "./support/api-client";
import { dialSilent, flood, held, openFiles, refusedWith, socketsOnPort } from "./support/flood";
import { ensureAgentBuilt, killHard, startApi } from "./support/processes";
import { freshServerEnv } from "../support/server-env";
import { startConnectedAgent } from "../support/agent-process";
import { cleanUpAfterFile, tempDirFor } from "../support/file-cleanups";

// Caps set low through env (docs/fault-tests.md, "Connection flood"); hello time-outs long, so the flood is held
// until the test closes it. Flooders dial from loopback aliases, the real agent from 127.0.0.1.
const caps = {
  AGENT_PENDING_MAX: "40",
  AGENT_PENDING_PER_ADDRESS: "30",
  AGENT_PENDING_RESERVED: "4",
  AGENT_HELLO_TIMEOUT_MS: "120000",
  AGENT_BUSY_HELLO_TIMEOUT_MS: "120000",
};
const floodA = "127.0.0.2";
const floodB = "127.0.0.3";

const { cleanups } = cleanUpAfterFile();
let api: Child;
let port: number;
let url: string;
let browser: Browser;
let dir: string;

beforeAll(async () => {
  await ensureAgentBuilt();
  dir = await tempDirFor(cleanups, "throng-flood-");
  const env = await freshServerEnv(cleanups);
  port = await freePort();
  url = `http://127.0.0.1:${port}`;
  api = await startApi(env, port, "api", caps);
  cleanups.push(() => api.stop("SIGKILL", 1_000));
  browser = await signUp(url);
}, 120_000);

/** A real `throng-agent connect` with one engine; resolves once it printed that it is connected. */
const startAgent = (token: string) =>
  startConnectedAgent({ name: "agent", server: url, token, home: dir, args: ["--engines", "1"] }, cleanups);

describe("fault: a flood of WebSocket connections that never say hello", () => {
  it("is refused over the caps at the upgrade, while REST, enrolment and enrolled agents still get in", async () => {
    const gateway = `ws://127.0.0.1:${port}${AGENT_GATEWAY_PATH}`;
    const pid = api.process.pid!;
    const filesBefore = await openFiles(pid);

    // One source past its own cap: 429 with Retry-After before any WebSocket handshake.
    const fromA = await flood(gateway, floodA, 45);
    expect(held(fromA)).toHaveLength(30);
    expect(refusedWith(fromA, 429)).toHaveLength(15);
    for (const refusal of refusedWith(fromA, 429))
      expect(Number((refusal as { retryAfter: string }).retryAfter)).toBeGreaterThan(0);

    // Another address still enrols a real agent.
    const { token } = await browser.request<{ token: string }>("POST", "/api/enrolment-tokens", {
      expiresInMinutes: 60,
    });
    let agent = await startAgent(token);
    await waitForAgents(browser, 1);

    // A second source fills the gateway: 503 for everyone without a credential, from any address.
    const fromB = await flood(gateway, floodB, 45);
    expect(held(fromB)).toHaveLength(10);
    expect(refusedWith(fromB, 503)).toHaveLength(35);
    expect(await dialSilent(gateway, "127.0.0.1")).toMatchObject({ refused: 503 });

    // The browser and REST paths answer during the flood.
    expect((await fetch(`${url}/health`)).status).toBe(200);
    expect((await browser.request<{ agents: unknown[] }>("GET", "/api/agents")).agents).toHaveLength(1);

    // The enrolled agent, killed and started again, proves its credential at the upgrade and gets a reserved slot.
    await killHard(agent);
    agent = await startAgent(token);
    await waitForAgents(browser, 1);

    // The flood ends: every socket it held on the API goes, and the API holds no more descriptors than a few over before.
    for (const ws of [...held(fromA), ...held(fromB)]) ws.terminate();
    await waitUntil(async () => (await socketsOnPort(pid, port, [floodA, floodB])) === 0, {
      what: "the flood's sockets to close on the API",
      timeoutMs: 10_000,
    });
    expect(await openFiles(pid)).toBeLessThan(filesBefore + 10); // the agent's socket, pooled database connections
  }, 120_000);
});
