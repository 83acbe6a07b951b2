// The frame of a journey against a private redis-server: one browser page kept across the file's serial tests,
// uncaught page errors collected, the agents it starts and the server stopped after it, its scratch folder removed.
import type { ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "@playwright/test";
import { expect, test } from "./test";
import {
  agentBin,
  agentProcesses,
  artifacts,
  baseUrl,
  expectAgentsOnline,
  json,
  url,
  write,
  type AgentProcess,
} from "./e2e-env";
import { redisScenario, redisTarget } from "../../tests/support/redis-plans";
import { startRedis } from "./redis-server";

export interface RedisJourney {
  /** A folder for agent configs and Redis's files, removed after the journey. */
  readonly scratch: string;
  readonly page: Page;
  readonly redisPort: number;
  /** Uncaught page errors ("url: message"); a journey ends by expecting none. */
  readonly pageErrors: string[];
  /** Starts `throng-agent` with these arguments; stopped after the journey. */
  start: ReturnType<typeof agentProcesses>["start"];
  /** The reference target on a free port (its ws:// URL); stopped after the journey. */
  startTarget: ReturnType<typeof agentProcesses>["startTarget"];
  /** Enrols an agent in the signed-in user's organisation and starts it with these extra arguments. */
  startAgent(...extra: string[]): Promise<AgentProcess>;
  /** Opens a new plan named `name` aimed at the redis-server: TCP, "\r\n" framing typed as text. */
  newRedisPlan(name: string): Promise<void>;
  /** Once one agent is online, starts the plan from the Plans page and answers the run's id (the run page is open). */
  startRun(planName: string): Promise<string>;
  /**
   * A plan's spec aimed at the redis-server whose every session first sends `command` and must hear +OK back (a "-"
   * reply fails the session), then pings it in order.
   */
  sessionPlan(options: { name: string; command: string; clients: number }): object;
  /** A full-page screenshot to e2e/artifacts/<prefix>-<name>.png. */
  shot(name: string): Promise<Buffer>;
}

/** Registers the file's beforeAll/afterAll; `prefix` names its scratch folder and screenshots; `redisArgs` go to redis-server. */
export function redisJourney(prefix: string, redisArgs: string[] = []): RedisJourney {
  const scratch = mkdtempSync(join(tmpdir(), `throng-${prefix}-`));
  const agents = agentProcesses();
  const pageErrors: string[] = [];
  let context: BrowserContext | undefined;
  let page: Page | undefined;
  let redis: ChildProcess | undefined;
  let redisPort = 0;

  test.describe.configure({ mode: "serial" });
  test.beforeAll(async ({ browser }) => {
    test.skip(!baseUrl || !agentBin, "npm test sets E2E_BASE_URL and E2E_AGENT_BIN");
    mkdirSync(artifacts, { recursive: true });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on("pageerror", (error) => pageErrors.push(`${page!.url()}: ${error.message}`));
    ({ port: redisPort, process: redis } = await startRedis(scratch, redisArgs));
  });
  test.afterAll(async () => {
    agents.stopAll();
    redis?.kill("SIGTERM");
    await context?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  const current = () => {
    if (!page) throw new Error("the journey's page exists from beforeAll on");
    return page;
  };
  return {
    scratch,
    get page() {
      return current();
    },
    get redisPort() {
      return redisPort;
    },
    pageErrors,
    start: agents.start,
    startTarget: agents.startTarget,
    async startAgent(...extra) {
      const enrolment = await json<{ commands: { node: string } }>(
        await current().request.post(url("/api/enrolment-tokens"), { data: {}, ...write }),
        "enrolment token",
      );
      return agents.start([
        ...enrolment.commands.node.trim().split(/\s+/).slice(2),
        "--config",
        join(scratch, "agent.json"),
        ...extra,
      ]);
    },
    async newRedisPlan(name) {
      const page = current();
      await page.goto(url("/plans/new"));
      await page.getByLabel("Plan name").fill(name);
      const target = page.getByTestId("plan-section-target");
      await page.getByLabel("Protocol", { exact: true }).selectOption("tcp");
      await target.getByLabel("Host", { exact: true }).fill("127.0.0.1");
      await target.getByLabel("Port", { exact: true }).fill(String(redisPort));
      // A TCP target starts with a framing that saves (no "choose one" header size), and offers none only for scripts.
      const framing = target.getByLabel("Framing", { exact: true });
      await expect(framing).toHaveValue("length-prefix");
      await expect(target.getByLabel("Header", { exact: true })).toHaveValue("2");
      await expect(framing.locator("option").first()).toHaveText("none (a script scenario reads the socket itself)");
      await framing.selectOption("delimiter");
      // One delimiter, as text and hex side by side, in view: not three boxes folded under Options.
      await expect(target.getByLabel("Delimiter (hex)")).toHaveValue("0a");
      await expect(target.getByLabel(/^Delimiter/)).toHaveCount(2);
      await expect(target.getByLabel("Delimiter (text)")).toBeVisible();
      await target.getByLabel("Delimiter (text)").fill("\\r\\n");
      await expect(target.getByLabel("Delimiter (hex)")).toHaveValue("0d0a");
    },
    async startRun(planName) {
      const page = current();
      await expectAgentsOnline(page, 1);
      await page.goto(url("/plans"));
      await page.locator(`[data-testid="plan-row"][data-plan-name="${planName}"]`).getByTestId("start-run").click();
      await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
      return /\/runs\/([0-9a-f-]{36})/.exec(page.url())![1]!;
    },
    sessionPlan: ({ name, command, clients }) => ({
      name,
      target: redisTarget(redisPort),
      scenario: redisScenario(200, "PING", {
        session: [
          { kind: "send", message: { body: command } },
          { kind: "expect", reply: { regex: "^\\+OK" }, failWhen: { regex: "^-" } },
        ],
      }),
      load: { clients, durationSec: 3 },
    }),
    shot: (name) => current().screenshot({ path: join(artifacts, `${prefix}-${name}.png`), fullPage: true }),
  };
}
