import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { RunReport } from "@throng/protocol/run";
import { RunServerSeries } from "@throng/protocol/server-watch";
import { spawnChild, type Child } from "../infra/local/child";
import { freePort } from "../infra/local/ports";
import { waitUntil } from "../infra/local/wait";
import { getSeries, signUp, waitForStatus, type Browser } from "./fault/support/api-client";
import { agentBin, ensureAgentBuilt, root, startApi, startTarget, startWorkers } from "./fault/support/processes";
import { freshServerEnv } from "./support/server-env";
import { agentConnectArgs } from "./support/agent-process";
import { cleanUpAfterFile, tempDirFor } from "./support/file-cleanups";

/**
 * agent/PROTOCOL.md §11, end to end with real processes: API, workers, the reference target, a load agent
 * (`connect`) and a watcher (`watch --pid <target> --server`) on the target's host. The run's stored server
 * series must hold one sample per second of the run, on the same seconds as the load's series.
 */
const DURATION_SEC = 4;
const { cleanups } = cleanUpAfterFile();
let browser: Browser;
let apiUrl: string;
let targetUrl: string;

async function startAgentProcess(name: string, args: string[], home: string): Promise<Child> {
  let connected = false;
  const child = spawnChild({
    name,
    command: process.execPath,
    args: [agentBin, ...args],
    cwd: root,
    env: { ...process.env, HOME: home },
    log: (line) => (connected ||= /connected to \S+ as agent/.test(line)),
  });
  cleanups.push(() => child.stop("SIGKILL", 1_000));
  await waitUntil(async () => connected, { what: `${name} to connect`, timeoutMs: 30_000, abort: child.diedEarly });
  return child;
}

beforeAll(async () => {
  await ensureAgentBuilt();
  const dir = await tempDirFor(cleanups, "throng-watch-");
  const env = await freshServerEnv(cleanups);
  const apiPort = await freePort();
  const api = await startApi(env, apiPort);
  cleanups.push(() => api.stop("SIGKILL", 1_000));
  const workers = await startWorkers(env);
  cleanups.push(() => workers.stop("SIGKILL", 1_000));
  const targetPort = await freePort();
  const target = await startTarget(targetPort);
  cleanups.push(() => target.stop());
  apiUrl = `http://127.0.0.1:${apiPort}`;
  targetUrl = `ws://127.0.0.1:${targetPort}/ws`;
  browser = await signUp(apiUrl);
  const { token } = await browser.request<{ token: string }>("POST", "/api/enrolment-tokens", { expiresInMinutes: 60 });
  await startAgentProcess(
    "load-agent",
    [...agentConnectArgs(apiUrl, token, path.join(dir, "agent.json")), "--engines", "1"],
    dir,
  );
  await startAgentProcess(
    "watcher",
    [
      "watch",
      "--pid",
      String(target.process.pid),
      "--server",
      apiUrl,
      "--token",
      token,
      "--config",
      path.join(dir, "watcher.json"),
      "--label",
      "role=server",
    ],
    dir,
  );
  await waitUntil(
    async () => {
      const { agents } = await browser.request<{ agents: { status: string; role?: string }[] }>("GET", "/api/agents");
      return agents.filter((a) => a.status === "online").length === 2 && agents.some((a) => a.role === "watch");
    },
    { what: "the load agent and the watcher online", timeoutMs: 30_000, intervalMs: 200 },
  );
}, 180_000);

function plan(watchLabels: Record<string, string>) {
  return {
    name: `watched ${crypto.randomUUID().slice(0, 6)}`,
    target: { protocol: "websocket", url: targetUrl },
    scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 },
    load: { clients: 4, durationSec: DURATION_SEC, rampUpSec: 0 },
    watch: { labels: watchLabels },
  };
}

describe("watching the server under test under the control plane (PROTOCOL.md §11)", () => {
  it("stores one server sample per second of the run, on the load's seconds, and puts them in the report", async () => {
    const saved = await browser.request<{ id: string }>("POST", "/api/plans", plan({ role: "server" }));
    const created = await browser.request<{ id: string }>("POST", `/api/plans/${saved.id}/runs`);
    const { run } = await waitForStatus(browser, created.id, ["finished", "failed", "aborted"], 60_000);
    expect(run.status, run.error ?? "").toBe("finished");
    expect(run.error).toBeNull();

    const server = RunServerSeries.parse(await browser.request("GET", `/api/runs/${created.id}/server`));
    expect(server.points.map((p) => p.seq)).toEqual(Array.from({ length: DURATION_SEC }, (_, i) => i));
    const load = await getSeries(browser, created.id);
    expect(server.points.map((p) => p.t)).toEqual(load.map((p) => p.t));
    for (const point of server.points) expect(point.rssBytes).toBeGreaterThan(1_000_000);
    // The target answered 40 pings a second over loopback: the host's packets show it.
    expect(Math.max(...server.points.map((p) => p.network.packetsInPerSec))).toBeGreaterThan(40);
    expect(server.summary).toMatchObject({ seconds: DURATION_SEC });

    const report = RunReport.parse(await browser.request("GET", `/api/runs/${created.id}/report`));
    expect(report.server?.points).toHaveLength(DURATION_SEC);
  }, 90_000);

  it("refuses to start a run whose plan asks for a watcher that is not online, saying what to run", async () => {
    const saved = await browser.request<{ id: string }>("POST", "/api/plans", plan({ role: "database" }));
    await expect(browser.request("POST", `/api/plans/${saved.id}/runs`)).rejects.toThrow(
      /409.*no watcher is online.*--label role=database/,
    );
  });
});
