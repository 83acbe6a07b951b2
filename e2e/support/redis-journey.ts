// The frame of a journey against a private redis-server: one browser page kept across the file's serial tests,
// uncaught page errors collected, the agents it starts and the server stopped after it, its scratch folder removed.
import type { ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type BrowserContext, type Page } from "@playwright/test";
import { agentBin, agentProcesses, artifacts, baseUrl } from "./e2e-env";
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
  /** A full-page screenshot to e2e/artifacts/<prefix>-<name>.png. */
  shot(name: string): Promise<Buffer>;
}

/** Registers the file's beforeAll/afterAll; `prefix` names its scratch folder and screenshots. */
export function redisJourney(prefix: string): RedisJourney {
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
    ({ port: redisPort, process: redis } = await startRedis(scratch));
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
    shot: (name) => current().screenshot({ path: join(artifacts, `${prefix}-${name}.png`), fullPage: true }),
  };
}
