// The walking skeleton, as a user: sign up, enrol an agent, write a plan, run it, read the summary.
// The stack (web, API, workers) is started by `npm test`; this spec starts only the agent and the
// reference target, as child processes, and drives everything else through the browser.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "@playwright/test";
import { expect, test } from "./support/test";

function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`Set ${name} (npm test does) before running the e2e suite.`);
  return value;
}

const baseUrl = requireEnv("E2E_BASE_URL").replace(/\/+$/, "");
const agentBin = requireEnv("E2E_AGENT_BIN");
const artifacts = fileURLToPath(new URL("./artifacts/", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "throng-e2e-"));
const children: { name: string; child: ChildProcess; output: string[] }[] = [];

const url = (path: string) => `${baseUrl}${path}`;
const screenshot = (page: Page, name: string) =>
  page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });

/** Starts a child process whose output is kept for the report if the test fails. */
function startChild(name: string, args: string[]) {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env: process.env });
  const output: string[] = [];
  child.stdout?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  children.push({ name, child, output });
  return { child, output };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts the reference ping-pong server and resolves with the URL it prints once listening. */
async function startTarget(): Promise<string> {
  const port = await freePort();
  const { child, output } = startChild("target", [agentBin, "target", "--host", "127.0.0.1", "--port", String(port)]);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`target did not start:\n${output.join("")}`)), 15_000);
    const onData = () => {
      const match = /target listening on (ws:\/\/\S+)/.exec(output.join(""));
      if (!match?.[1]) return;
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      resolve(match[1]);
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`target exited with ${code}:\n${output.join("")}`)));
  });
}

/** `node agent/dist/throng-agent.mjs connect --server … --token …` as shown on the page → our argv. */
function agentArgs(command: string, configPath: string): string[] {
  const words = command.trim().split(/\s+/);
  expect(words[0], `enrolment command: ${command}`).toBe("node");
  expect(words[1], `enrolment command: ${command}`).toMatch(/throng-agent\.mjs$/);
  expect(words).toContain("--token");
  return [agentBin, ...words.slice(2), "--config", configPath];
}

async function stopChild({ child }: { child: ChildProcess }) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timeout = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 5_000));
  if ((await Promise.race([exited, timeout])) === "timeout") child.kill("SIGKILL");
}

test.beforeAll(() => mkdirSync(artifacts, { recursive: true }));

test.afterAll(async () => {
  await Promise.all(children.map(stopChild));
  rmSync(scratch, { recursive: true, force: true });
});

// biome-ignore lint/correctness/noEmptyPattern: Playwright reads a hook's fixtures from its first parameter, which must be a destructuring pattern; this one needs none.
test.afterEach(async ({}, testInfo) => {
  if (testInfo.status === testInfo.expectedStatus) return;
  for (const { name, output } of children) {
    await testInfo.attach(`${name}.log`, { body: output.join(""), contentType: "text/plain" });
  }
});

test("a new user enrols an agent, runs a ping-pong plan and reads its summary", async ({ page }) => {
  test.setTimeout(180_000);
  const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const email = `e2e-${stamp}@example.com`;
  const password = `pw-${stamp}`;

  await test.step("sign up, sign out, sign in", async () => {
    await page.goto(url("/sign-up"));
    await page.getByLabel("Name", { exact: true }).fill("E2E Tester");
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(password);
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page).toHaveURL(url("/"));
    await expect(page.getByTestId("org-name")).not.toBeEmpty();

    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/sign-in$/);
    await page.goto(url("/agents"));
    await expect(page).toHaveURL(/\/sign-in$/);

    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    // Home's checklist: nothing done yet, and its first step leads to the Agents page.
    await expect(page.getByTestId("getting-started")).toContainText("0 of 4 done");
    await page.getByRole("link", { name: "Create an enrolment token" }).click();
    await expect(page).toHaveURL(/\/agents$/);
  });

  await test.step("enrol an agent with the command from the page", async () => {
    await expect(page.getByTestId("agents-empty")).toBeVisible();
    await page.getByTestId("create-enrolment-token").click();
    await page.getByRole("tab", { name: "Throng checkout" }).click();
    const command = (await page.getByTestId("install-command-node").textContent()) ?? "";
    startChild("agent", agentArgs(command, join(scratch, "agent.json")));
    await expect(page.locator('[data-testid="agent-row"][data-status="online"]')).toHaveCount(1, { timeout: 30_000 });
    // What its owner lets it run, from its hello: the page's command had no flags, so no scripts and any target.
    await expect(page.getByTestId("agent-scripts")).toHaveText("scripts: no");
    await expect(page.getByTestId("agent-targets")).toHaveText("targets: any");
    await page.getByLabel("Run scripts").check();
    await expect(page.getByTestId("install-command-node")).toContainText(" --allow-scripts");
    await screenshot(page, "agents");
  });

  const targetUrl = await test.step("start the reference target", startTarget);

  await test.step("the plan form reports bad fields, then saves a good plan", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Plans" }).click();
    await expect(page.getByTestId("plans-empty")).toBeVisible();
    await page.goto(url("/plans/new"));
    await page.getByLabel("Plan name", { exact: true }).fill(`Skeleton ${stamp}`);
    await page.getByLabel("Target URL", { exact: true }).fill("http://not-a-websocket");
    await page.getByLabel("Clients", { exact: true }).fill("0");
    await page.getByTestId("save-plan").click();
    await expect(page.getByTestId("field-error-target-url")).toBeVisible();
    await expect(page.getByTestId("field-error-load-clients")).toBeVisible();
    await expect(page).toHaveURL(/\/plans\/new$/);

    await page.getByLabel("Target URL", { exact: true }).fill(targetUrl);
    await page.getByLabel("Clients", { exact: true }).fill("10");
    await page.getByLabel("Duration", { exact: true }).fill("6");
    await page.getByLabel("Ramp-up", { exact: true }).fill("0");
    await page.getByLabel("Ping interval", { exact: true }).fill("200");
    await page.getByLabel("Message size", { exact: true }).fill("64");
    await expect(page.getByTestId("plan-rate")).toContainText("≈ 50 messages/s");
    await screenshot(page, "plan-form");
    await page.getByTestId("save-plan").click();
    await expect(page).toHaveURL(/\/plans\/[0-9a-f-]{36}$/);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Plans" }).click();
  });

  await test.step("start a run and watch the charts fill while it runs", async () => {
    const row = page.locator(`[data-testid="plan-row"][data-plan-name="Skeleton ${stamp}"]`);
    await row.getByTestId("start-run").click();
    await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
    // Points first, then the status: a status still live afterwards means the points came while it ran.
    const fewestPoints = async () => {
      const counts = await Promise.all(
        ["chart-connections", "chart-messages", "chart-rtt"].map(async (id) =>
          Number((await page.getByTestId(id).getAttribute("data-points")) ?? 0),
        ),
      );
      return Math.min(...counts);
    };
    await expect.poll(fewestPoints, { timeout: 30_000 }).toBeGreaterThan(0);
    const status = await page.getByTestId("run-status").getAttribute("data-status");
    expect(["running", "stopping", "degraded"]).toContain(status);
    await screenshot(page, "run-live");
  });

  await test.step("the finished run's summary shows the load it generated", async () => {
    await expect(page.getByTestId("run-status")).toHaveAttribute("data-status", "finished", { timeout: 60_000 });
    await expect(page.getByTestId("summary-peak-connections")).toHaveText("10", { timeout: 15_000 });
    const rate = Number(((await page.getByTestId("summary-messages-per-sec").textContent()) ?? "").replace(/,/g, ""));
    expect(rate).toBeGreaterThan(0);
    await expect(page.getByTestId("summary-rtt-p99")).toHaveText(/ms$/);
    await screenshot(page, "summary");
  });
});
