// npm test: fresh PostgreSQL and Redis on free ports, the lint (biome ci), vitest (unit + integration), then
// Playwright against the whole stack, then schemathesis against the api, then the container deployment (infra/deploy/test-deploy.ts);
// ends with one "N passed, N failed" line over all. Flags: --unit-only, --e2e-only, --fuzz-only, --deploy-only.
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase, uniquePrefix } from "@throng/db/testing";
import { runDeployTest, tearDownDeployTest } from "../deploy/test-deploy";
import { runApiFuzz } from "./api-fuzz";
import { packageBin } from "./binaries";
import { agentBuild, buildIfStale, webBuild } from "./build";
import { runLint } from "./lint";
import { ensureNetworkQueueHeaders } from "./netfilter-queue";
import { spawnChild, stopAllChildren } from "./child";
import { ensureChromium } from "./chromium";
import { prefixedLog, type Log } from "./log";
import { freePort } from "./ports";
import { ensurePostgres } from "./postgres";
import { ensureRedis } from "./redis";
import { startStack } from "./stack";
import {
  addCounts,
  type Counts,
  failureLines,
  noCounts,
  playwrightCounts,
  playwrightFailures,
  summaryLine,
  vitestCounts,
  vitestFailures,
} from "./test-report";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const runDir = path.join(root, ".data", `test-${process.pid}`);
const log = prefixedLog("test");
const passThrough: Log = (line) => process.stdout.write(`${line}\n`);
const seconds = (since: number) => `${Math.round((Date.now() - since) / 1000)} s`;

interface Services {
  adminUrl: string;
  redisUrl: string;
}

const ONLY_FLAGS = ["--unit-only", "--e2e-only", "--fuzz-only", "--deploy-only"];

function phasesFromArgs(args: string[]): { unit: boolean; e2e: boolean; fuzz: boolean; deploy: boolean } {
  const unknown = args.filter((arg) => !ONLY_FLAGS.includes(arg));
  if (unknown.length) throw new Error(`Unknown argument ${unknown.join(" ")}; use ${ONLY_FLAGS.join(", ")}.`);
  const only = args.find((arg) => ONLY_FLAGS.includes(arg));
  const runs = (flag: string) => !only || only === flag;
  return {
    unit: runs("--unit-only"),
    e2e: runs("--e2e-only"),
    fuzz: runs("--fuzz-only"),
    deploy: runs("--deploy-only"),
  };
}

async function runFuzz(services: Services): Promise<Counts> {
  const started = Date.now();
  log("phase 3: API fuzz (schemathesis from /api/openapi.json against a real api)");
  const counts = await runApiFuzz({ root, redisUrl: services.redisUrl, runDir, log: prefixedLog("fuzz") }).catch(
    (error: unknown) => {
      log(`API fuzz failed: ${error instanceof Error ? error.message : String(error)}`);
      return { ...noCounts, failed: 1 };
    },
  );
  await untilExitIfInterrupted();
  log(`phase 3 done in ${seconds(started)}: ${summaryLine(counts)}`);
  return counts;
}

/** Docker images and compose on host networking; skipped (not passed) where no Docker daemon can be had. */
async function runDeploy(): Promise<Counts> {
  const started = Date.now();
  log("phase 4: deploy (images, docker compose on loopback, three agents, a run; infra/deploy/test-deploy.ts)");
  const counts = await runDeployTest({ log: prefixedLog("deploy") }).catch((error: unknown) => {
    log(`deploy test failed: ${error instanceof Error ? error.message : String(error)}`);
    return { ...noCounts, failed: 1 };
  });
  await untilExitIfInterrupted();
  log(`phase 4 done in ${seconds(started)}: ${summaryLine(counts)}`);
  return counts;
}

/**
 * Tests that measure time or load (the agent's engine, the fault suite with real processes, the capacity
 * search) run after the rest, one file at a time: on two cores a parallel neighbour skews what they measure.
 */
const SERIAL_TESTS = ["agent/src/", "tests/fault/", "tests/capacity-accuracy", "tests/verdicts", "tests/baseline-gate"];
// The parallel pass leaves them out by glob: a folder's whole tree, or the files whose names start so.
const SERIAL_EXCLUDES = SERIAL_TESTS.map((prefix) => (prefix.endsWith("/") ? `${prefix}**` : `${prefix}*`));

/** The tests that failed, by name, printed above the closing line (a CI log's tail then names them). */
const failedTests: string[] = [];

async function vitestPass(services: Services, name: string, extraArgs: string[]): Promise<Counts> {
  const report = path.join(runDir, `vitest-${name}.json`);
  const vitest = spawnChild({
    name: `vitest ${name}`,
    command: process.execPath,
    // Two workers: on two cores more only makes the integration tests fight over the CPU.
    args: [
      packageBin(root, "vitest", "vitest"),
      "run",
      "--maxWorkers=2",
      "--minWorkers=1",
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${report}`,
      ...extraArgs,
    ],
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: undefined,
      TEST_DATABASE_URL: services.adminUrl,
      REDIS_URL: services.redisUrl,
    },
    log: passThrough,
  });
  const { code } = await vitest.exited;
  await untilExitIfInterrupted();
  const counts = await vitestCounts(report, code);
  if (counts.failed > 0) failedTests.push(...(await vitestFailures(report, root)));
  return counts;
}

async function runVitest(services: Services): Promise<Counts> {
  const lintStarted = Date.now();
  log("phase 1: lint (biome ci: format and the rules of biome.jsonc)");
  const lint = await runLint(root, log, passThrough);
  log(`lint done in ${seconds(lintStarted)}: ${summaryLine(lint)}`);
  // The agent's tests load the native I/O addon from agent/dist (built with the bundle); a failed build shows up
  // as those tests failing with its reason, not as a run that stops here. The kernel path's addon needs its headers first.
  await ensureNetworkQueueHeaders(log).catch((error: unknown) =>
    log(`could not install the network queue's headers: ${error instanceof Error ? error.message : String(error)}`),
  );
  await buildIfStale(root, agentBuild, log).catch((error: unknown) =>
    log(`agent build failed: ${error instanceof Error ? error.message : String(error)}`),
  );
  const started = Date.now();
  log("phase 1a: vitest (unit and integration tests, in parallel)");
  const parallel = await vitestPass(
    services,
    "parallel",
    SERIAL_EXCLUDES.flatMap((glob) => ["--exclude", glob]),
  );
  log(`phase 1a done in ${seconds(started)}: ${summaryLine(parallel)}`);
  const serialStarted = Date.now();
  log(`phase 1b: vitest (timing-sensitive tests, one file at a time: ${SERIAL_TESTS.join(", ")})`);
  const serial = await vitestPass(services, "serial", ["--no-file-parallelism", ...SERIAL_TESTS]);
  log(`phase 1b done in ${seconds(serialStarted)}: ${summaryLine(serial)}`);
  return addCounts(lint, addCounts(parallel, serial));
}

async function runE2e(services: Services): Promise<Counts> {
  const started = Date.now();
  log("phase 2: e2e (Playwright in Chromium against api, workers and web)");
  let stack: Awaited<ReturnType<typeof startStack>> | undefined;
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let chromiumPath: string;
  let e2eDnsServer = "";
  try {
    chromiumPath = await ensureChromium(log);
    await buildIfStale(root, agentBuild, log);
    await buildIfStale(root, webBuild, log);
    database = await createTestDatabase(); // Fresh and migrated, on services.adminUrl.
    // The SSO journey proves domains with a DNS server it starts on this port, and runs its identity providers on loopback.
    e2eDnsServer = `127.0.0.1:${await freePort()}`;
    stack = await startStack({
      root,
      databaseUrl: database.url,
      redisUrl: services.redisUrl,
      authSecret: randomBytes(32).toString("base64url"),
      apiPort: await freePort(),
      webPort: await freePort(),
      logLevel: "warn",
      queuePrefix: uniquePrefix(), // TEST_REDIS_URL may point at a Redis that something else uses too.
      // Every journey signs up from 127.0.0.1, more than the default 10 accounts per address in 10 minutes; the
      // limit itself is tested against the defaults in apps/api/src/security.int.test.ts.
      // The api prints report PDFs with the same Chromium the journeys drive.
      env: {
        RATE_LIMIT_SIGN_UPS_PER_10_MIN: "1000",
        CHROMIUM_PATH: chromiumPath,
        SSO_DNS_SERVERS: e2eDnsServer,
        SSO_PRIVATE_IDP_ORIGINS: "http://127.0.0.1:*",
      },
    });
  } catch (error) {
    await untilExitIfInterrupted();
    log(`e2e setup failed: ${error instanceof Error ? error.message : String(error)}`);
    return { ...noCounts, failed: 1 };
  }
  log(`stack up in ${seconds(started)}: web ${stack.webUrl}, api ${stack.apiUrl}`);
  const report = path.join(runDir, "playwright.json");
  const playwright = spawnChild({
    name: "playwright",
    command: process.execPath,
    // E2E_GREP narrows phase 2 to the specs whose title matches (while working on one journey).
    args: [
      packageBin(path.join(root, "e2e"), "@playwright/test", "playwright"),
      "test",
      "-c",
      "e2e/playwright.config.ts",
      ...(process.env.E2E_GREP ? ["-g", process.env.E2E_GREP] : []),
    ],
    cwd: root,
    env: {
      ...process.env,
      E2E_BASE_URL: stack.webUrl,
      E2E_API_URL: stack.apiUrl,
      E2E_AGENT_BIN: path.join(root, agentBuild.output),
      CHROMIUM_PATH: chromiumPath,
      E2E_JSON_REPORT: report,
      E2E_DNS_SERVER: e2eDnsServer,
    },
    log: passThrough,
  });
  const { code } = await playwright.exited;
  await untilExitIfInterrupted();
  await stack.stop();
  await database.drop(); // Matters when TEST_DATABASE_URL is a shared server.
  const counts = await playwrightCounts(report, code);
  if (counts.failed > 0) failedTests.push(...(await playwrightFailures(report)));
  log(`phase 2 done in ${seconds(started)}: ${summaryLine(counts)}`);
  return counts;
}

async function main(): Promise<number> {
  const phases = phasesFromArgs(process.argv.slice(2));
  await fs.mkdir(runDir, { recursive: true, mode: 0o755 });
  await fs.chmod(runDir, 0o755); // The postgres user must be able to enter it.
  let counts = noCounts;
  try {
    // DATABASE_URL/REDIS_URL are a developer's own data: tests use fresh servers unless TEST_* point elsewhere.
    const postgres = await ensurePostgres({
      dataDir: path.join(runDir, "postgres"),
      port: await freePort(),
      log: prefixedLog("postgres"),
      ephemeral: true,
      envVar: "TEST_DATABASE_URL",
    });
    const redis = await ensureRedis({
      dataDir: path.join(runDir, "redis"),
      port: await freePort(),
      log: prefixedLog("redis"),
      ephemeral: true,
      envVar: "TEST_REDIS_URL",
    });
    const services = { adminUrl: postgres.adminUrl, redisUrl: redis.url };
    process.env.TEST_DATABASE_URL = services.adminUrl; // For createTestDatabase in phase 2.
    if (phases.unit) counts = addCounts(counts, await runVitest(services));
    if (phases.e2e) counts = addCounts(counts, await runE2e(services));
    if (phases.fuzz) counts = addCounts(counts, await runFuzz(services));
    // Needs neither of the servers above: the stack under test brings its own, in containers.
    if (phases.deploy) counts = addCounts(counts, await runDeploy());
  } catch (error) {
    await untilExitIfInterrupted();
    log(`failed: ${error instanceof Error ? error.message : String(error)}`);
    counts = addCounts(counts, { ...noCounts, failed: 1 });
  }
  await cleanUp();
  for (const line of failureLines(failedTests)) console.log(line);
  console.log(summaryLine(counts));
  return counts.failed > 0 || counts.passed + counts.failed === 0 ? 1 : 0;
}

async function cleanUp(): Promise<void> {
  await stopAllChildren();
  await tearDownDeployTest();
  await fs.rm(runDir, { recursive: true, force: true });
}

let interrupted = false;
/** After Ctrl-C the signal handler cleans up and exits; the phases must not go on meanwhile. */
function untilExitIfInterrupted(): Promise<void> {
  return interrupted ? new Promise(() => undefined) : Promise.resolve();
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: stopping and removing ${path.relative(root, runDir)}`);
    void cleanUp().finally(() => process.exit(130));
  });
}
main().then(
  (code) => process.exit(code),
  async (error: unknown) => {
    await untilExitIfInterrupted();
    log(`failed: ${error instanceof Error ? error.message : String(error)}`);
    await cleanUp();
    process.exit(1);
  },
);
