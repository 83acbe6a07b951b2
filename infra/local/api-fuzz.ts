// The API fuzz phase of `npm test`: schemathesis, driven by GET /api/openapi.json, against a real api process over a
// fresh database, with a fixed seed and case budget. Any 5xx or disagreement with the document fails the phase.
import { execFile } from "node:child_process";
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createTestDatabase, uniquePrefix } from "@throng/db/testing";
import { agentBuild, buildIfStale } from "./build";
import { spawnChild } from "./child";
import { prefixedLog, type Log } from "./log";
import { freePort } from "./ports";
import { addCounts, noCounts, type Counts } from "./test-report";
import { waitUntil } from "./wait";

const run = promisify(execFile);

/** Pinned: a new schemathesis generates other cases and adds checks, which should be a deliberate change. */
export const SCHEMATHESIS_VERSION = "4.32.5";
/** Same seed, same cases: a failure here reproduces with the command the phase prints. */
export const FUZZ_SEED = 20261124;
/**
 * Cases per operation in the fuzzing phase; the coverage phase adds its own (boundary and wrong-type values per
 * schema keyword). About 8,000 cases in all: 100 s on two busy cores (docs/api-fuzzing.md).
 */
export const FUZZ_MAX_EXAMPLES = 20;
/**
 * Left out of the token pass: the fuzzer's token must survive the run. Its generated ids are random UUIDs, so a
 * hit is unlikely, but one would turn every later case into a 401, which conforms and tests nothing.
 */
export const FUZZ_EXCLUDED_OPERATIONS = ["DELETE /api/tokens/{id}"];

const WEB_ORIGIN = "http://localhost:3000";

/** Python 3 with venv, or null when this machine has none (the phase is then skipped, saying so). */
async function findPython(): Promise<{ command: string; version: string } | null> {
  for (const command of ["python3", "python"]) {
    try {
      const { stdout } = await run(command, ["-c", "import sys, venv; print('%d.%d' % sys.version_info[:2])"]);
      if (stdout.trim().startsWith("3.")) return { command, version: stdout.trim() };
    } catch {
      // not installed under this name
    }
  }
  return null;
}

/** A venv under node_modules/.cache with the pinned schemathesis; made once, reused while the pin matches. */
export async function ensureSchemathesis(root: string, python: string, log: Log): Promise<string> {
  const venv = path.join(root, "node_modules/.cache/throng-venv");
  const bin = path.join(venv, "bin/schemathesis");
  const installed = existsSync(bin)
    ? await run(bin, ["--version"]).then(
        (r) => r.stdout,
        () => "",
      )
    : "";
  if (installed.includes(SCHEMATHESIS_VERSION)) return bin;
  log(`installing schemathesis ${SCHEMATHESIS_VERSION} into ${path.relative(root, venv)} (from PyPI)`);
  await fs.rm(venv, { recursive: true, force: true });
  await run(python, ["-m", "venv", venv]);
  await run(
    path.join(venv, "bin/pip"),
    ["install", "--quiet", "--disable-pip-version-check", `schemathesis==${SCHEMATHESIS_VERSION}`],
    { maxBuffer: 16 << 20 },
  );
  return bin;
}

/** A user with an org (sign-up makes one) and an API token with every permission the owner has. */
async function createFuzzUser(apiUrl: string): Promise<{ token: string; cookie: string }> {
  const headers = { origin: WEB_ORIGIN, "content-type": "application/json" };
  const signUp = await fetch(`${apiUrl}/api/auth/sign-up/email`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      name: "Fuzzer",
      email: `fuzzer-${Date.now()}@example.com`,
      password: "correct-horse-battery",
    }),
  });
  if (signUp.status !== 200)
    throw new Error(`sign-up for the fuzz user answered ${signUp.status}: ${await signUp.text()}`);
  const cookie = signUp.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const created = await fetch(`${apiUrl}/api/tokens`, {
    method: "POST",
    headers: { ...headers, cookie },
    body: JSON.stringify({ name: "schemathesis", scope: "admin" }),
  });
  if (created.status !== 201)
    throw new Error(`creating the fuzz API token answered ${created.status}: ${await created.text()}`);
  const { token } = (await created.json()) as { token: string };
  return { token, cookie };
}

/** The operations only a browser session may call (`x-access: signed-in`): the second pass sends a session cookie. */
async function sessionOnlyOperations(apiUrl: string): Promise<string[]> {
  const doc = (await (await fetch(`${apiUrl}/api/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { "x-access"?: string }>>;
  };
  return Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([, operation]) => operation["x-access"] === "signed-in")
      .map(([method]) => `${method.toUpperCase()} ${path}`),
  );
}

/**
 * The checks (in the file, not on the command line: a check named there is on in every phase, and the stateful phase
 * leaves one out), and per-operation settings (which routes skip the coverage phase, and why).
 */
const CONFIG_FILE = fileURLToPath(new URL("./schemathesis.toml", import.meta.url));

export function schemathesisArgs(
  apiUrl: string,
  junitPath: string,
  operations: { include?: string[]; exclude?: string[] },
): string[] {
  return [
    "--config-file",
    CONFIG_FILE,
    "run",
    `${apiUrl}/api/openapi.json`,
    "--seed",
    String(FUZZ_SEED),
    "--max-examples",
    String(FUZZ_MAX_EXAMPLES),
    ...(operations.include ?? []).flatMap((operation) => ["--include-name", operation]),
    ...(operations.exclude ?? []).flatMap((operation) => ["--exclude-name", operation]),
    // One: two worker threads hit CPython 3.11.7's ast race (gh-106905) now and then, failing the run for nothing.
    "--workers",
    "1",
    "--request-timeout",
    "10",
    "--suppress-health-check",
    "too_slow,filter_too_much",
    // Each pass sends real credentials. Generating a second, random one (a session cookie beside the token) made
    // ignored_auth read the token's success as "accepts an invalid cookie": a route takes either, so it is not.
    "--generation-with-security-parameters",
    "false",
    "--report",
    "junit",
    "--report-junit-path",
    junitPath,
    "--no-color",
  ];
}

/** Operations passed and failed, from schemathesis's JUnit report (one testcase per operation). */
async function junitCounts(file: string, exitCode: number | null): Promise<Counts> {
  const xml = await fs.readFile(file, "utf8").catch(() => "");
  const cases = xml.match(/<testcase\b[\s\S]*?(?:\/>|<\/testcase>)/g) ?? [];
  const failed = cases.filter((c) => /<(failure|error)\b/.test(c)).length;
  const skipped = cases.filter((c) => /<skipped\b/.test(c)).length;
  const counts = { passed: cases.length - failed - skipped, failed, skipped };
  return exitCode !== 0 && failed === 0 ? { ...counts, failed: 1 } : counts;
}

async function runPass(
  schemathesis: string,
  pass: { args: string[]; secret: string[]; shown: string; cwd: string; log: Log },
): Promise<Counts> {
  pass.log(`schemathesis ${pass.args.join(" ")} ${pass.shown}`);
  const fuzz = spawnChild({
    name: "schemathesis",
    command: schemathesis,
    args: [...pass.args, ...pass.secret],
    cwd: pass.cwd,
    log: (line) => process.stdout.write(`${line}\n`),
  });
  const { code } = await fuzz.exited;
  const junit = pass.args[pass.args.indexOf("--report-junit-path") + 1]!;
  return junitCounts(junit, code);
}

/** Runs the phase against its own api process; needs TEST_DATABASE_URL (an admin URL) and a Redis. */
export async function runApiFuzz(options: {
  root: string;
  redisUrl: string;
  runDir: string;
  log: Log;
}): Promise<Counts> {
  const { root, log } = options;
  const python = await findPython();
  if (!python) {
    log("skipped: Python 3 (with venv) is not installed; install python3 to run the API fuzz phase");
    return { ...noCounts, skipped: 1 };
  }
  // A Python 3 too old for the pinned schemathesis is a failure to fix (install 3.11+), not a reason to skip.
  if (Number(python.version.split(".")[1]) < 11)
    throw new Error(
      `schemathesis ${SCHEMATHESIS_VERSION} needs Python 3.11 or newer; ${python.command} is ${python.version}`,
    );
  const schemathesis = await ensureSchemathesis(root, python.command, log);
  // The api serves the agent bundle (GET /agent/throng-agent.mjs, .tgz): without it those answer 503 and fail the phase.
  await buildIfStale(root, agentBuild, log);
  const database = await createTestDatabase();
  const port = await freePort();
  const apiUrl = `http://127.0.0.1:${port}`;
  const api = spawnChild({
    name: "api (fuzzed)",
    command: process.execPath,
    args: ["--import", "tsx", "apps/api/src/main.ts"],
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: database.url,
      REDIS_URL: options.redisUrl,
      AUTH_SECRET: "fuzz-secret-fuzz-secret-fuzz-secret-0123",
      API_HOST: "127.0.0.1",
      API_PORT: String(port),
      WEB_ORIGIN,
      API_PUBLIC_URL: apiUrl,
      LOG_LEVEL: "error",
      QUEUE_PREFIX: uniquePrefix(),
    },
    log: prefixedLog("api"),
  });
  try {
    await waitUntil(async () => (await fetch(`${apiUrl}/health`)).status === 200, {
      what: `the fuzzed api on port ${port}`,
      timeoutMs: 60_000,
      abort: api.diedEarly,
    });
    const { token, cookie } = await createFuzzUser(apiUrl);
    const reportDir = path.join(options.runDir, "schemathesis");
    // Pass 1: every operation but the token's own revocation, with the API token (what CI and the CLI send).
    const withToken = await runPass(schemathesis, {
      args: schemathesisArgs(apiUrl, path.join(reportDir, "token.xml"), { exclude: FUZZ_EXCLUDED_OPERATIONS }),
      secret: ["--header", `Authorization: Bearer ${token}`],
      shown: "-H 'Authorization: Bearer <token>'",
      cwd: options.runDir,
      log,
    });
    // Pass 2: the session-only operations (a token is refused there with 403), with the browser's cookie and origin.
    const withSession = await runPass(schemathesis, {
      args: schemathesisArgs(apiUrl, path.join(reportDir, "session.xml"), {
        include: await sessionOnlyOperations(apiUrl),
      }),
      secret: ["--header", `Cookie: ${cookie}`, "--header", `Origin: ${WEB_ORIGIN}`],
      shown: `-H 'Cookie: <session>' -H 'Origin: ${WEB_ORIGIN}'`,
      cwd: options.runDir,
      log,
    });
    return addCounts(withToken, withSession);
  } finally {
    await api.stop();
    await database.drop();
  }
}
