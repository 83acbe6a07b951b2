// What `npm test` hands the Playwright journeys, and the helpers several journeys share: the agent and the
// reference target as child processes of the test, and reading a JSON answer with a clear failure.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BrowserContext, Page } from "@playwright/test";
import { expect, test } from "./test";

export const baseUrl = (process.env.E2E_BASE_URL ?? "").replace(/\/+$/, "");
export const agentBin = process.env.E2E_AGENT_BIN ?? "";
export const artifacts = fileURLToPath(new URL("../artifacts/", import.meta.url));
/** Makes emails and names unique per run, so journeys never collide with earlier data. */
export const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
export const url = (path: string) => `${baseUrl}${path}`;
/** The Origin header the API's CSRF guard asks of every write with the session cookie, as page.request options. */
export const write = { headers: { origin: baseUrl } };

export interface AgentProcess {
  child: ChildProcess;
  output: string[];
}

/** Child processes of the built agent (`throng-agent …`), kept so a journey can stop them all at the end. */
export function agentProcesses() {
  const children: AgentProcess[] = [];
  function start(args: string[]): AgentProcess {
    const child = spawn(process.execPath, [agentBin, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    const output: string[] = [];
    child.stdout?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
    const running = { child, output };
    children.push(running);
    return running;
  }
  function startTargetProcess(): Promise<{ url: string; pid: number }> {
    const target = start(["target", "--host", "127.0.0.1", "--port", "0"]);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`target did not start: ${target.output.join("")}`)), 15_000);
      target.child.stdout?.on("data", () => {
        const match = /target listening on (ws:\/\/\S+)/.exec(target.output.join(""));
        if (match?.[1]) {
          clearTimeout(timer);
          resolve({ url: match[1], pid: target.child.pid! });
        }
      });
    });
  }
  return {
    start,
    /** The reference target on a free port; resolves with its ws:// URL once it listens. */
    async startTarget(): Promise<string> {
      return (await startTargetProcess()).url;
    },
    /** The same, with the target's pid (for a watcher of the server under test). */
    startTargetProcess,
    stopAll() {
      for (const { child } of children) if (child.exitCode === null) child.kill("SIGTERM");
    },
  };
}

/** The body of an API answer as JSON; a failed answer fails the test with its status and body. */
export async function json<T>(
  response: { ok(): boolean; status(): number; text(): Promise<string> },
  what: string,
): Promise<T> {
  const text = await response.text();
  expect(response.ok(), `${what}: HTTP ${response.status()} ${text}`).toBe(true);
  return JSON.parse(text) as T;
}

/** Signs a new user up as `name` (email `<emailPrefix>-<stamp>@example.com`, password `pw-<stamp>`), lands on Home and follows its first step to the Agents page. */
export async function signUp(page: Page, name: string, emailPrefix: string): Promise<void> {
  await page.goto(url("/sign-up"));
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByLabel("Email", { exact: true }).fill(`${emailPrefix}-${stamp}@example.com`);
  await page.getByLabel("Password", { exact: true }).fill(`pw-${stamp}`);
  await page.getByRole("button", { name: "Create account" }).click();
  // A new organisation lands on Home's checklist; its first step leads to the Agents page.
  // A new account's first page waits on its session and organisation: seconds on a busy machine.
  await expect(page.getByTestId("getting-started")).toBeVisible({ timeout: 15_000 });
  await page.getByRole("link", { name: "Create an enrolment token" }).click();
  await expect(page).toHaveURL(/\/agents$/);
}

/**
 * Enrols one agent into the signed-in user's organisation the way the Agents page says (its node command), starts
 * it with `start` (from agentProcesses) and its config at `configPath`, and waits until the API lists it online.
 */
export async function enrolAgent(
  page: Page,
  start: (args: string[]) => AgentProcess,
  configPath: string,
): Promise<AgentProcess> {
  const enrolment = await json<{ commands: { node: string } }>(
    await page.request.post(url("/api/enrolment-tokens"), { data: {}, ...write }),
    "enrolment token",
  );
  const words = enrolment.commands.node.trim().split(/\s+/);
  const agent = start([...words.slice(2), "--config", configPath]);
  await expectAgentsOnline(page, 1);
  return agent;
}

/** Waits until the signed-in user's organisation has `count` agents online, as the API lists them. */
export async function expectAgentsOnline(page: Page, count: number): Promise<void> {
  await expect
    .poll(
      async () =>
        (
          await json<{ agents: { status: string }[] }>(await page.request.get(url("/api/agents")), "agents")
        ).agents.filter((a) => a.status === "online").length,
      { timeout: 30_000 },
    )
    .toBe(count);
}

/** Saves a plan with this spec through the API with the browser's session; resolves with its id. */
export async function createPlan(page: Page, spec: object): Promise<{ id: string }> {
  return json(await page.request.post(url("/api/plans"), { data: spec, ...write }), "create plan");
}

/**
 * Saves a capacity search of the reference target at `targetUrl` through the API, as several journeys run one: 100 ms
 * pings of 64 bytes, 5 clients more every 2 s from 5 up to `clients`, for `durationSec`, judged on `slos`.
 */
export async function createStepUpPlan(
  page: Page,
  targetUrl: string,
  search: { name: string; clients: number; durationSec: number; slos: { metric: string; below: number }[] },
): Promise<{ id: string }> {
  return createPlan(page, {
    name: search.name,
    target: { protocol: "websocket", url: targetUrl },
    scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 },
    load: {
      clients: search.clients,
      durationSec: search.durationSec,
      shape: { kind: "step-up", mode: "fixed", startClients: 5, stepClients: 5, stepDurationSec: 2 },
    },
    slos: search.slos,
  });
}

/** Starts a run of the plan through the API; resolves with the run's id. */
export async function startRun(page: Page, planId: string): Promise<{ id: string }> {
  return json(await page.request.post(url(`/api/plans/${planId}/runs`), write), "start run");
}

/** Puts the plan on this cron schedule through the API; the test fails unless the API saves it (200). */
export async function putSchedule(
  page: Page,
  planId: string,
  schedule: { cron: string; timezone: string },
): Promise<void> {
  const response = await page.request.put(url(`/api/plans/${planId}/schedule`), { data: schedule, ...write });
  expect(response.status()).toBe(200);
}

/** Waits, reading the run through the API every `intervalMs`, until its status is `status`. */
export async function expectRunStatus(
  page: Page,
  runId: string,
  status: string,
  wait: { timeoutMs: number; intervalMs: number },
): Promise<void> {
  await expect
    .poll(
      async () =>
        (await json<{ status: string }>(await page.request.get(url(`/api/runs/${runId}`)), "read run")).status,
      { timeout: wait.timeoutMs, intervals: [wait.intervalMs] },
    )
    .toBe(status);
}

/** Starts a run of the plan through the API and waits until it has finished; resolves with the run's id. */
export async function finishedRun(
  page: Page,
  planId: string,
  wait: { timeoutMs: number; intervalMs: number },
): Promise<string> {
  const run = await startRun(page, planId);
  await expectRunStatus(page, run.id, "finished", wait);
  return run.id;
}

/**
 * Saves a ping-pong plan named `name` against `targetUrl` through the API and runs it `count` times, one after the
 * other, each to "finished"; resolves with the plan's id and its runs' ids in order.
 */
export async function finishedPingPongRuns(
  page: Page,
  options: { name: string; targetUrl: string; durationSec: number; count: number },
): Promise<{ planId: string; runIds: string[] }> {
  const plan = await createPlan(page, {
    name: options.name,
    target: { protocol: "websocket", url: options.targetUrl },
    scenario: { kind: "ping-pong", intervalMs: 200, messageBytes: 64 },
    load: { clients: 3, durationSec: options.durationSec },
  });
  const runIds: string[] = [];
  for (let i = 0; i < options.count; i++) {
    runIds.push(await finishedRun(page, plan.id, { timeoutMs: 60_000, intervalMs: 500 }));
  }
  return { planId: plan.id, runIds };
}

/**
 * A journey's one page: registers the beforeAll that opens a 1280×900 page (skipped outside npm test) and the
 * afterAll that closes it. `shot(name)` saves the whole page to e2e/artifacts/<prefix>-<name>.png. `downloads` lets
 * the page save files; `clipboard` lets it read and write the clipboard (a copy button's journey).
 */
export function journeyPage(prefix: string, options: { downloads?: boolean; clipboard?: boolean } = {}) {
  let context: BrowserContext | undefined;
  let page: Page | undefined;
  test.beforeAll(async ({ browser }) => {
    test.skip(!baseUrl, "npm test sets E2E_BASE_URL");
    mkdirSync(artifacts, { recursive: true });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: options.downloads });
    if (options.clipboard) await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseUrl });
    page = await context.newPage();
  });
  test.afterAll(async () => {
    await context?.close();
  });
  const shot = (name: string) => page!.screenshot({ path: join(artifacts, `${prefix}-${name}.png`), fullPage: true });
  return { page: () => page!, shot };
}

/**
 * The frame of a journey with one page (journeyPage), its agents and a scratch directory: skipped without the built
 * agent, it stops the agents and cleans up after the file's tests.
 */
export function pageJourney(prefix: string, options: { downloads?: boolean; clipboard?: boolean } = {}) {
  // Registered before the page's beforeAll, so a run without the agent opens no page for nothing.
  test.beforeAll(() => test.skip(!agentBin, "npm test sets E2E_AGENT_BIN"));
  const { page, shot } = journeyPage(prefix, options);
  const scratch = mkdtempSync(join(tmpdir(), `throng-${prefix}-`));
  const processes = agentProcesses();
  test.afterAll(() => {
    processes.stopAll();
    rmSync(scratch, { recursive: true, force: true });
  });
  /**
   * The start most journeys share: signs a new user up (see signUp) and enrols one agent into their organisation,
   * its config in the scratch directory; resolves with the page, signed in.
   */
  async function signUpWithAgent(name: string, emailPrefix: string): Promise<Page> {
    await signUp(page(), name, emailPrefix);
    await enrolAgent(page(), processes.start, join(scratch, "agent.json"));
    return page();
  }
  /** signUpWithAgent, then the reference target started; resolves with the page and the target's URL. */
  async function signUpWithAgentAndTarget(name: string, emailPrefix: string) {
    return { page: await signUpWithAgent(name, emailPrefix), targetUrl: await processes.startTarget() };
  }
  return { ...processes, scratch, page, shot, signUpWithAgent, signUpWithAgentAndTarget };
}
