// npm run test:deploy (and phase 4 of npm test): builds the images, starts infra/compose/compose.yaml on free
// loopback ports with host networking, signs up, enrols three agents with `--scale agent=3`, runs a short ping-pong
// plan against the reference target, checks the run's stored series and report, and always tears it all down.
// Each check is one case in the "N passed, N failed" line; without a Docker daemon the phase is skipped, not passed.
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { AgentView, EnrolmentTokenCreated, PlanView } from "@throng/protocol/api";
import { RunReport, RunSeries, RunView, TERMINAL_RUN_STATUSES } from "@throng/protocol/run";
import { AGENT_IMAGE, installMethods } from "../../apps/web/lib/agents/install-commands";
import { runCommand, stopAllChildren } from "../local/child";
import { prefixedLog, type Log } from "../local/log";
import { freePort } from "../local/ports";
import { summaryLine, type Counts } from "../local/test-report";
import { waitUntil } from "../local/wait";
import { signUp, type ApiSession } from "./api-session";
import { ensureBaseImage } from "./base-image";
import { ensureCompose, ensureDockerDaemon } from "./docker";
import { buildImages, type Images } from "./images";
import { capture } from "./shell";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const composeFile = path.join(root, "infra/compose/compose.yaml");
const AGENTS = 3;
const seconds = (since: number) => `${Math.round((Date.now() - since) / 1000)} s`;

interface Stack {
  compose: string[];
  project: string;
  env: NodeJS.ProcessEnv;
  webUrl: string;
  apiUrl: string;
  targetPort: number;
  apiReplicaPorts: number[];
  images: Images;
}

/** One named check: passes, or fails with its reason; after a failure the later checks cannot run. */
class Checks {
  counts: Counts = { passed: 0, failed: 0, skipped: 0 };
  private failedOnce = false;
  constructor(private readonly log: Log) {}

  async run<T>(name: string, step: () => Promise<T>): Promise<T | undefined> {
    if (this.failedOnce) {
      this.log(`skip: ${name} (an earlier check failed)`);
      this.counts.skipped++;
      return undefined;
    }
    const started = Date.now();
    try {
      const result = await step();
      this.log(`pass: ${name} (${seconds(started)})`);
      this.counts.passed++;
      return result;
    } catch (error) {
      this.log(`FAIL: ${name} (${seconds(started)}): ${error instanceof Error ? error.message : String(error)}`);
      this.counts.failed++;
      this.failedOnce = true;
      return undefined;
    }
  }
}

function composeArgs(
  stack: Pick<Stack, "compose" | "project">,
  ...args: string[]
): { command: string; args: string[] } {
  const [command, ...prefix] = stack.compose;
  return { command: command!, args: [...prefix, "-p", stack.project, "-f", composeFile, ...args] };
}

async function compose(stack: Pick<Stack, "compose" | "project" | "env">, ...args: string[]): Promise<void> {
  await runCommand({ name: `compose ${args[0]}`, ...composeArgs(stack, ...args), cwd: root, env: stack.env });
}

async function answers(url: string, good: (status: number) => boolean): Promise<boolean> {
  const response = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(5_000) });
  await response.body?.cancel();
  return good(response.status);
}

/** This process's hard open-file limit (/proc/self/limits), which the containers it starts cannot exceed either. */
async function hardOpenFileLimit(): Promise<number> {
  const limits = await readFile("/proc/self/limits", "utf8");
  const hard = /^Max open files\s+\S+\s+(\d+)/m.exec(limits)?.[1];
  return hard ? Number(hard) : 1_048_576;
}

async function composeEnv(images: Images): Promise<{ env: NodeJS.ProcessEnv; ports: Record<string, number> }> {
  const ports = {
    pg: await freePort(),
    redis: await freePort(),
    api: await freePort(),
    api1: await freePort(),
    api2: await freePort(),
    web: await freePort(),
    workersMetrics: await freePort(),
    target: await freePort(),
  };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    THRONG_APP_IMAGE: images.app,
    THRONG_WEB_IMAGE: images.web,
    THRONG_AGENT_IMAGE: images.agent,
    THRONG_POSTGRES_IMAGE: images.postgres,
    THRONG_REDIS_IMAGE: images.redis,
    THRONG_PG_PORT: String(ports.pg),
    THRONG_REDIS_PORT: String(ports.redis),
    THRONG_API_PORT: String(ports.api),
    THRONG_API_1_PORT: String(ports.api1),
    THRONG_API_2_PORT: String(ports.api2),
    THRONG_WEB_PORT: String(ports.web),
    THRONG_WORKERS_METRICS_PORT: String(ports.workersMetrics),
    // Loopback only: the test's load and probes never leave it.
    THRONG_PUBLIC_HOST: "127.0.0.1",
    THRONG_WEB_ORIGIN: `http://127.0.0.1:${ports.web}`,
    THRONG_API_PUBLIC_URL: `http://127.0.0.1:${ports.api}`,
    THRONG_DB_PASSWORD: randomBytes(16).toString("hex"),
    AUTH_SECRET: randomBytes(32).toString("base64url"),
    METRICS_TOKEN: randomBytes(24).toString("hex"),
    THRONG_LOG_LEVEL: "warn",
    // One engine per agent: three agents share this machine's two cores with everything else.
    THRONG_AGENT_ARGS: "--engines 1",
    // The compose file asks for 1,048,576 open files per agent; a host whose own hard limit is lower (this VM's is
    // 20,000, and runc may not raise it) refuses to start the containers, so ask for what this host has.
    THRONG_AGENT_NOFILE: process.env.THRONG_AGENT_NOFILE ?? String(await hardOpenFileLimit()),
  };
  return { env, ports };
}

async function startStack(stack: Stack, log: Log): Promise<void> {
  await compose(
    stack,
    "up",
    "-d",
    "--no-build",
    "postgres",
    "redis",
    "migrate",
    "api-1",
    "api-2",
    "api",
    "workers",
    "web",
  );
  await waitUntil(() => answers(`${stack.apiUrl}/health`, (status) => status === 200), {
    what: `the api's /health through the balancer (${stack.apiUrl})`,
    timeoutMs: 180_000,
    intervalMs: 1000,
  });
  // Both replicas, each on its own port: the balancer alone would answer with one of them down.
  for (const port of stack.apiReplicaPorts) {
    await waitUntil(() => answers(`http://127.0.0.1:${port}/health`, (status) => status === 200), {
      what: `api replica /health on port ${port}`,
      timeoutMs: 60_000,
      intervalMs: 1000,
    });
  }
  await waitUntil(() => answers(`${stack.webUrl}/`, (status) => status < 500), {
    what: `the web (${stack.webUrl})`,
    timeoutMs: 180_000,
    intervalMs: 1000,
  });
  log(`stack up: web ${stack.webUrl}, api ${stack.apiUrl}`);
}

async function enrolAgents(stack: Stack, session: ApiSession): Promise<void> {
  const { token } = await session.call("POST", "/api/enrolment-tokens", EnrolmentTokenCreated, {
    expiresInMinutes: 30,
  });
  await compose(
    { ...stack, env: { ...stack.env, THRONG_ENROLMENT_TOKEN: token } },
    "up",
    "-d",
    "--no-build",
    "--no-deps",
    "--scale",
    `agent=${AGENTS}`,
    "agent",
  );
  const Agents = z.object({ agents: z.array(AgentView) });
  let online = 0;
  await waitUntil(
    async () => {
      const { agents } = await session.call("GET", "/api/agents", Agents);
      online = agents.filter((agent) => agent.status === "online").length;
      return online === AGENTS;
    },
    { what: `${AGENTS} agents online`, timeoutMs: 120_000, intervalMs: 1000 },
  ).catch((error: unknown) => {
    throw new Error(`${error instanceof Error ? error.message : String(error)} (${online} online at the end)`);
  });
}

/** Each image's HEALTHCHECK (and the compose file's): every container that has one reports healthy. */
async function checkHealthChecks(stack: Stack): Promise<void> {
  // postgres, redis, api-1, api-2, the balancer, workers, web and the agents; migrate has exited.
  const expected = 7 + AGENTS;
  let statuses: string[] = [];
  await waitUntil(
    async () => {
      const text = await capture("docker", [
        "ps",
        "--filter",
        `label=com.docker.compose.project=${stack.project}`,
        "--format",
        "{{.Names}}: {{.Status}}",
      ]);
      statuses = text.trim().split("\n").filter(Boolean);
      return statuses.filter((line) => line.includes("(healthy)")).length === expected;
    },
    { what: `${expected} containers healthy`, timeoutMs: 90_000, intervalMs: 2000 },
  ).catch((error: unknown) => {
    throw new Error(`${error instanceof Error ? error.message : String(error)}: ${statuses.join("; ")}`);
  });
}

/** The reference target, from the agent image, on a loopback port; removed with the project. */
async function startTarget(stack: Stack): Promise<void> {
  await capture("docker", [
    "run",
    "-d",
    "--rm",
    "--name",
    `${stack.project}-target`,
    "--network",
    "host",
    stack.images.agent,
    "target",
    "--host",
    "127.0.0.1",
    "--port",
    String(stack.targetPort),
  ]);
  await waitUntil(() => answers(`http://127.0.0.1:${stack.targetPort}/stats`, (status) => status === 200), {
    what: "the reference target",
    timeoutMs: 30_000,
    intervalMs: 500,
  });
}

async function runPlan(stack: Stack, session: ApiSession): Promise<z.infer<typeof RunView>> {
  const plan = await session.call("POST", "/api/plans", PlanView, {
    name: "deploy ping-pong",
    target: { protocol: "websocket", url: `ws://127.0.0.1:${stack.targetPort}/ws` },
    scenario: { kind: "ping-pong", intervalMs: 200, messageBytes: 64 },
    load: { clients: 30, durationSec: 5 },
  });
  let run = await session.call("POST", `/api/plans/${plan.id}/runs`, RunView);
  await waitUntil(
    async () => {
      run = await session.call("GET", `/api/runs/${run.id}`, RunView);
      return TERMINAL_RUN_STATUSES.includes(run.status);
    },
    { what: `run ${run.id} to end`, timeoutMs: 120_000, intervalMs: 1000 },
  );
  if (run.status !== "finished")
    throw new Error(`run ${run.id} ended ${run.status}${run.error ? `: ${run.error}` : ""}`);
  if (run.summary?.agents !== AGENTS) throw new Error(`the run used ${run.summary?.agents ?? 0} agents, not ${AGENTS}`);
  return run;
}

async function checkSeries(session: ApiSession, run: z.infer<typeof RunView>): Promise<void> {
  const { points } = await session.call("GET", `/api/runs/${run.id}/series`, RunSeries);
  const loaded = points.filter((point) => point.messagesReceivedPerSec > 0);
  if (loaded.length < 3)
    throw new Error(`the stored series has ${loaded.length} seconds with replies (of ${points.length})`);
  const received = points.reduce((sum, point) => sum + point.messagesReceivedPerSec, 0);
  if (Math.abs(received - (run.summary?.messagesReceived ?? -1)) > 0.5)
    throw new Error(`the series sums to ${received} replies, the run's summary says ${run.summary?.messagesReceived}`);
  if (!points.some((point) => point.agents === AGENTS))
    throw new Error(`no second of the series carries all ${AGENTS} agents`);
}

async function checkReport(session: ApiSession, run: z.infer<typeof RunView>): Promise<void> {
  const report = await session.call("GET", `/api/runs/${run.id}/report`, RunReport);
  if (report.run.id !== run.id || report.run.status !== "finished")
    throw new Error(`the report is of run ${report.run.id} (${report.run.status})`);
  const { points } = await session.call("GET", `/api/runs/${run.id}/series`, RunSeries);
  if (report.series.length !== points.length)
    throw new Error(`the report has ${report.series.length} seconds, the series ${points.length}`);
}

/**
 * The app image leaves Chromium out unless built WITH_CHROMIUM=true (infra/compose/README.md): its api must still
 * load the bundled PDF renderer and answer Download PDF with 503 saying what it needs, not fail.
 */
async function checkPdfWithoutChromium(session: ApiSession, run: z.infer<typeof RunView>): Promise<void> {
  const refused = await session.call("GET", `/api/runs/${run.id}/report.pdf`, z.unknown()).then(
    () => null,
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
  if (!refused?.includes("answered 503") || !refused.includes("Chromium"))
    throw new Error(`expected 503 naming Chromium, got: ${refused ?? "a PDF"}`);
}

/**
 * The Agents page's Container command, run by the shell as the page shows it, with two words changed: the image is
 * this test's build of it, and the container's name is the project's (so a developer's own agent is left alone).
 */
async function runPageContainerCommand(stack: Stack, session: ApiSession): Promise<void> {
  const created = await session.call("POST", "/api/enrolment-tokens", EnrolmentTokenCreated, {
    expiresInMinutes: 30,
    singleUse: true,
  });
  const shown = installMethods(created)?.find((method) => method.id === "container")?.text;
  if (!shown) throw new Error("the Agents page offers no container command for this token");
  const prefix = `docker run -d --name throng-agent --restart unless-stopped --network host ${AGENT_IMAGE} connect `;
  if (!shown.startsWith(prefix)) throw new Error(`the page's container command changed shape: ${shown}`);
  const command = shown
    .replace("--name throng-agent ", `--name ${stack.project}-page-agent `)
    .replace(` ${AGENT_IMAGE} connect `, ` ${stack.images.agent} connect `);
  await capture("sh", ["-c", command]);
  const Agents = z.object({ agents: z.array(AgentView) });
  await waitUntil(
    async () =>
      (await session.call("GET", "/api/agents", Agents)).agents.filter((agent) => agent.status === "online").length ===
      AGENTS + 1,
    {
      what: `the page's container agent online beside the ${AGENTS} compose agents`,
      timeoutMs: 60_000,
      intervalMs: 1000,
    },
  );
}

/** Logs of every container of the project, for a failure's post-mortem. */
async function dumpLogs(stack: Stack, log: Log): Promise<void> {
  const { command, args } = composeArgs(stack, "logs", "--no-color", "--tail", "40");
  const text = await capture(command, args, { cwd: root, env: stack.env }).catch((error: unknown) => String(error));
  for (const line of text.split("\n")) log(line);
}

async function tearDown(stack: Stack, log: Log): Promise<void> {
  await capture("docker", ["rm", "-f", `${stack.project}-target`, `${stack.project}-page-agent`]).catch(
    () => undefined,
  );
  await compose(stack, "down", "-v", "--remove-orphans", "--timeout", "5").catch((error: unknown) =>
    log(`compose down failed: ${error instanceof Error ? error.message : String(error)}`),
  );
}

let running: Stack | undefined;

/** For a Ctrl-C in the middle: removes the containers and volumes of a deploy test still up. */
export async function tearDownDeployTest(log: Log = prefixedLog("deploy")): Promise<void> {
  const stack = running;
  running = undefined;
  if (stack) await tearDown(stack, log);
}

export async function runDeployTest(options: { log?: Log } = {}): Promise<Counts> {
  const log = options.log ?? prefixedLog("deploy");
  const started = Date.now();
  const docker = await ensureDockerDaemon(log);
  if (!docker.ok) {
    log(`skipped: ${docker.reason}`);
    return { passed: 0, failed: 0, skipped: 1 };
  }
  const checks = new Checks(log);
  const composeCommand = await checks.run("a compose command", () => ensureCompose(log));
  const base = await checks.run("a base image", () => ensureBaseImage(log));
  const images = await checks.run("images built (app, agent, web)", () => buildImages(root, base!, log));
  const built = Date.now();
  if (!composeCommand || !images) return checks.counts;
  log(`images ready in ${seconds(started)} (base ${base})`);

  const { env, ports } = await composeEnv(images);
  const stack: Stack = {
    compose: composeCommand,
    project: `throng-deploy-${process.pid}`,
    env,
    webUrl: `http://127.0.0.1:${ports.web}`,
    apiUrl: `http://127.0.0.1:${ports.api}`,
    targetPort: ports.target!,
    apiReplicaPorts: [ports.api1!, ports.api2!],
    images,
  };
  running = stack;
  try {
    await checks.run(
      "compose up: postgres, redis, migrate, 2 api replicas behind the balancer, workers, web; healthy",
      () => startStack(stack, log),
    );
    const session = await checks.run("sign up through the web's /api proxy", () => signUp(stack.webUrl));
    await checks.run(`--scale agent=${AGENTS}: every agent enrolled with one token and online`, () =>
      enrolAgents(stack, session!),
    );
    await checks.run(
      "every container with a health check reports healthy (api replicas, balancer, workers, web, agents, PostgreSQL, Redis)",
      () => checkHealthChecks(stack),
    );
    await checks.run("the reference target up on loopback", () => startTarget(stack));
    const run = await checks.run("a 5 s ping-pong run on all agents finishes", () => runPlan(stack, session!));
    await checks.run("the run's stored per-second series carries the load", () => checkSeries(session!, run!));
    await checks.run("the run's report matches its series", () => checkReport(session!, run!));
    await checks.run("the report's PDF, without Chromium in the image, is a 503 that says what it needs", () =>
      checkPdfWithoutChromium(session!, run!),
    );
    await checks.run("the Agents page's container command, as shown, starts an agent that comes online", () =>
      runPageContainerCommand(stack, session!),
    );
    if (checks.counts.failed) await dumpLogs(stack, log);
  } finally {
    const downStarted = Date.now();
    running = undefined;
    await tearDown(stack, log);
    log(`torn down (compose down -v) in ${seconds(downStarted)}`);
  }
  log(
    `deploy test: ${summaryLine(checks.counts)} in ${seconds(started)} (images ${Math.round((built - started) / 1000)} s, stack, checks and teardown ${seconds(built)})`,
  );
  return checks.counts;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    // The compose or docker command in flight first: a `compose up` still going would recreate what down removed.
    process.on(
      signal,
      () =>
        void stopAllChildren()
          .then(() => tearDownDeployTest())
          .finally(() => process.exit(130)),
    );
  }
  runDeployTest().then(
    (counts) => {
      console.log(summaryLine(counts));
      process.exit(counts.failed > 0 || counts.passed === 0 ? 1 : 0);
    },
    (error: unknown) => {
      console.error(`test:deploy failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
