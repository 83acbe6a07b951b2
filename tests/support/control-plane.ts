import { availableParallelism } from "node:os";
import { spawnChild, type Child } from "../../infra/local/child";
import { freePort } from "../../infra/local/ports";
import { ensureAgentBuilt, root, startApi, startWorkers } from "../fault/support/processes";
import { waitUntil } from "../../infra/local/wait";
import { signUp, waitForAgents, type Browser } from "../fault/support/api-client";
import { freshServerEnv } from "./server-env";
import { agentFromSource, spawnAgent } from "./agent-process";

export interface ControlPlane {
  apiUrl: string;
  databaseUrl: string;
  api: Child;
  workers: Child;
}

/**
 * The whole control plane for one test file: a fresh database and an api and a workers process on it (the test
 * Redis, a queue prefix of their own, 1 s heartbeats). Each piece pushes its stop to `cleanups` and its last lines
 * to `tails`, for a failure's message.
 */
export async function startControlPlane(
  cleanups: (() => Promise<unknown>)[],
  tails: (() => string)[],
): Promise<ControlPlane> {
  const env = await freshServerEnv(cleanups, { heartbeatMs: 1_000 });
  const apiPort = await freePort();
  const api = await startApi(env, apiPort);
  cleanups.push(() => api.stop("SIGKILL", 1_000));
  const workers = await startWorkers(env);
  cleanups.push(() => workers.stop("SIGKILL", 1_000));
  tails.push(
    () => `api:\n${api.tail()}`,
    () => `workers:\n${workers.tail()}`,
  );
  return { apiUrl: `http://127.0.0.1:${apiPort}`, databaseUrl: env.databaseUrl, api, workers };
}

/** One agent (from source) enrolled with a new token into `browser`'s org, its credential in `dir`; resolves once it is online. */
export async function startEnrolledAgent(
  plane: Pick<ControlPlane, "apiUrl">,
  browser: Browser,
  dir: string,
  cleanups: (() => Promise<unknown>)[],
  tails: (() => string)[],
  extraArgs: string[] = [],
): Promise<Child> {
  const { token } = await browser.request<{ token: string }>("POST", "/api/enrolment-tokens", { expiresInMinutes: 60 });
  // The bundle, as shipped, not the source through tsx: tsx's engine processes took 6.5 s each to be ready on a busy
  // host (the bundle's 2 s), long enough for a short run's shard to expire before its engines were up.
  await ensureAgentBuilt();
  const agent = spawnAgent({ name: "agent", server: plane.apiUrl, token, home: dir, args: extraArgs });
  cleanups.push(() => agent.stop("SIGKILL", 1_000));
  tails.push(() => `agent:\n${agent.tail()}`);
  await waitForAgents(browser, 1);
  // Online is not yet ready: its spare engine processes fork after it connects, and a run placed before they are up
  // forks them inside the server's 2 s start lead. On a busy host (load average 25 on two cores) that took past a 4 s
  // run's end and the shard expired, honestly: the tests that start runs at once wait for the spares instead.
  const enginesAsked = extraArgs.indexOf("--engines");
  const spares = enginesAsked >= 0 ? Number(extraArgs[enginesAsked + 1]) : availableParallelism();
  if (spares > 1) {
    await waitUntil(async () => agent.tail().includes(`${spares} of ${spares} engine processes forked and ready`), {
      what: "the agent's spare engine processes",
      timeoutMs: 60_000,
      intervalMs: 100,
      abort: agent.diedEarly,
    });
  }
  return agent;
}

/** The agent's reference target (from source) on a loopback port of its own, with `args` (e.g. --delay-ms); resolves with its ws:// URL. */
export async function startReferenceTarget(cleanups: (() => Promise<unknown>)[], args: string[] = []): Promise<string> {
  let lines = "";
  const target = spawnChild({
    name: "target",
    command: process.execPath,
    cwd: root,
    args: [...agentFromSource, "target", "--host", "127.0.0.1", "--port", "0", ...args],
    log: (line) => (lines += `${line}\n`),
  });
  cleanups.push(() => target.stop("SIGKILL", 1_000));
  await waitUntil(async () => /target listening on (ws:\/\/\S+)/.test(lines), {
    what: "the reference target to listen",
    timeoutMs: 30_000,
    intervalMs: 100,
    abort: target.diedEarly,
  });
  return /target listening on (ws:\/\/\S+)/.exec(lines)![1]!;
}

/**
 * Everything a test needs to run a plan: the reference target, the control plane, a signed-up organisation and one
 * agent of it online (its credential in `dir`).
 */
export async function startRunnableOrg(
  dir: string,
  cleanups: (() => Promise<unknown>)[],
  tails: (() => string)[],
): Promise<{ targetUrl: string; plane: ControlPlane; browser: Browser }> {
  const targetUrl = await startReferenceTarget(cleanups);
  const plane = await startControlPlane(cleanups, tails);
  const browser = await signUp(plane.apiUrl);
  await startEnrolledAgent(plane, browser, dir, cleanups, tails);
  return { targetUrl, plane, browser };
}
