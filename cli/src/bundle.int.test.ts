import { execFile, spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EnrolmentTokenCreated } from "@throng/protocol/api";
import { ApiTokenCreated } from "@throng/protocol/orgs";
import { RunView } from "@throng/protocol/run";
// Tests may drive the real API in-process (production code never imports an app).
import { connectTestAgent, helloWith, type TestAgent } from "../../apps/api/src/testing/test-agent";
import { startTestApi, type TestApi } from "../../apps/api/src/testing/test-api";
import { ExitCode } from "./cli-exit-codes";
import { planDir } from "./testing/cli-harness";
import { PLAN_YAML } from "./testing/fixtures";

const cliDir = fileURLToPath(new URL("../", import.meta.url));
const bundle = join(cliDir, "dist", "throng.mjs");
const run = promisify(execFile);

/** The bundled file as users install it, run from a directory with no node_modules. */
function throng(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [bundle, ...args], {
    cwd: tmpdir(),
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += String(chunk)));
  child.stderr.on("data", (chunk) => (stderr += String(chunk)));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const line = (pattern: RegExp) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const match = stdout.match(pattern);
        if (match) resolve(match);
      };
      child.stdout.on("data", check);
      void exit.then((code) => reject(new Error(`exited ${code} before printing ${pattern}; stderr: ${stderr}`)));
      check();
    });
  return { child, exit, line, stdout: () => stdout, stderr: () => stderr };
}

let api: TestApi;
const agents: TestAgent[] = [];
beforeAll(async () => {
  await run(process.execPath, [join(cliDir, "build.mjs")]);
  api = await startTestApi({ orchestration: { startDelayMs: 100, finishGraceMs: 60_000, agentLostGraceMs: 60_000 } });
});
afterAll(async () => {
  await Promise.all(agents.map((agent) => (agent.ws.readyState === agent.ws.OPEN ? agent.close() : undefined)));
  await api?.close();
});

describe("the bundled throng CLI", () => {
  it("prints help with the exit codes from any directory", async () => {
    const cli = throng(["--help"]);
    expect(await cli.exit).toBe(0);
    expect(cli.stdout()).toMatch(/Usage: throng[\s\S]*Exit codes:[\s\S]*130 +interrupted/);
  });

  it("exits 2 naming the file and field of an invalid plan", async () => {
    const { plan } = await planDir(PLAN_YAML.replace("clients: 5", "clients: 0"));
    const cli = throng(["run", plan], { THRONG_SERVER: "http://127.0.0.1:1", THRONG_TOKEN: "thr_api_x" });
    expect(await cli.exit).toBe(ExitCode.usage);
    expect(cli.stderr()).toContain(`${plan} is not a valid plan:\n  load.clients: must be at least 1`);
  });

  it("aborts the run and exits 130 on SIGINT while waiting", async () => {
    const user = await api.signUp("Signal");
    const token = ApiTokenCreated.parse(
      (await user.request("POST", "/api/tokens", { name: "ci", scope: "run" })).json,
    ).token;
    const enrolment = EnrolmentTokenCreated.parse((await user.request("POST", "/api/enrolment-tokens")).json).token;
    const agent = await connectTestAgent(api.gatewayUrl);
    agents.push(agent);
    agent.send({ type: "hello", payload: helloWith({ kind: "enrolment", token: enrolment }) });
    const { orgId } = await agent.next("ready");

    const { plan } = await planDir(PLAN_YAML);
    const cli = throng(["run", plan, "--wait"], { THRONG_SERVER: api.url, THRONG_TOKEN: token });
    const runId = (await cli.line(/^run (\S+) queued/m))[1]!;
    await api.deps.orchestrator.start(orgId, runId);
    await agent.next("run-assignment");
    await cli.line(/^ +\d+s (preparing|running)/m);
    cli.child.kill("SIGINT");
    expect(await cli.exit).toBe(ExitCode.interrupted);
    expect(RunView.parse((await user.request("GET", `/api/runs/${runId}`)).json).status).toBe("aborted");
    expect(`${cli.stdout()}${cli.stderr()}`).not.toContain(token);
  });
});
