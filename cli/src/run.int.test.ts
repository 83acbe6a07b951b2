import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EnrolmentTokenCreated, type PlanView } from "@throng/protocol/api";
import type { RunPage } from "@throng/protocol/run-list";
import { ApiTokenCreated } from "@throng/protocol/orgs";
import { RunView } from "@throng/protocol/run";
// Tests may drive the real API in-process (production code never imports an app).
import { connectTestAgent, helloWith, type TestAgent } from "../../apps/api/src/testing/test-agent";
import { startTestApi, type TestApi, type TestUser } from "../../apps/api/src/testing/test-api";
import { ExitCode } from "./cli-exit-codes";
import { planDir, startCli, type CliRun } from "./testing/cli-harness";
import { PLAN_YAML } from "./testing/fixtures";
import { encodeRttUs } from "./testing/histogram";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ orchestration: { startDelayMs: 100, finishGraceMs: 60_000, agentLostGraceMs: 60_000 } });
});
const agents: TestAgent[] = [];
afterAll(async () => {
  // An open agent socket would hold the API's close; a failed test may have left one.
  await Promise.all(agents.map((agent) => (agent.ws.readyState === agent.ws.OPEN ? agent.close() : undefined)));
  await api?.close();
});

interface Org {
  user: TestUser;
  token: string;
}

async function orgWithToken(name: string): Promise<Org> {
  const user = await api.signUp(name);
  const created = ApiTokenCreated.parse((await user.request("POST", "/api/tokens", { name: "ci", scope: "run" })).json);
  return { user, token: created.token };
}

async function onlineAgent(org: Org): Promise<{ agent: TestAgent; orgId: string }> {
  const enrolment = EnrolmentTokenCreated.parse((await org.user.request("POST", "/api/enrolment-tokens")).json).token;
  const agent = await connectTestAgent(api.gatewayUrl);
  agents.push(agent);
  agent.send({ type: "hello", payload: helloWith({ kind: "enrolment", token: enrolment }) });
  const ready = await agent.next("ready");
  return { agent, orgId: ready.orgId };
}

/**
 * Plays the worker and the agent for the run the CLI started: start it, send two seconds of snapshots with
 * the given round trip, report the shard finished, and close the run (no BullMQ worker runs in this harness).
 */
async function playRun(cli: CliRun, agent: TestAgent, orgId: string, rttMs: number): Promise<string> {
  const runId = (await cli.waitFor(/^run (\S+) queued/m))[1]!;
  await api.deps.orchestrator.start(orgId, runId);
  const assignment = await agent.next("run-assignment");
  const t0 = Math.floor(assignment.startAt / 1000) * 1000;
  for (const seq of [0, 1]) {
    agent.send({
      type: "snapshot",
      payload: {
        runId,
        seq,
        intervalStart: t0 + seq * 1000,
        intervalMs: 1000,
        clients: 5,
        counters: {
          connectionsOpen: 5,
          connectionsOpened: seq === 0 ? 5 : 0,
          connectionsFailed: 0,
          connectionsClosed: 0,
          messagesSent: 50,
          messagesReceived: 50,
          bytesSent: 3200,
          bytesReceived: 1000,
          errors: 0,
        },
        histograms: { rttUs: encodeRttUs(Array(50).fill(rttMs * 1000)) },
        health: { cpuPercent: 5, eventLoopP99Ms: 1, rssBytes: 50_000_000 },
      },
    });
    await agent.next("snapshot-ack");
  }
  // The CLI polls; let it see the run running with its seconds before the run ends (on a loaded CI machine the
  // run could otherwise finish between two polls, and no progress line with figures would be printed).
  await cli.waitFor(/msgs\/s out/);
  agent.send({ type: "shard-status", payload: { runId, state: "finished", lastSeq: 1 } });
  await expect.poll(async () => api.queue.getJob(`finish-all-shards-done-${runId}`), { timeout: 5000 }).toBeTruthy();
  await api.deps.orchestrator.finish(orgId, runId);
  return runId;
}

function runArgs(org: Org, plan: string, ...extra: string[]): string[] {
  return ["run", plan, "--server", api.url, "--token", org.token, ...extra];
}

describe("throng run against the real API", () => {
  it("exits 0 when every SLO holds, printing the verdict and writing JSON and JUnit", async () => {
    const org = await orgWithToken("Pass");
    const { agent, orgId } = await onlineAgent(org);
    const { dir, plan } = await planDir(PLAN_YAML);
    const cli = startCli(
      runArgs(org, plan, "--wait", "--json", join(dir, "out.json"), "--junit", join(dir, "junit.xml")),
    );
    const runId = await playRun(cli, agent, orgId, 3);
    expect(await cli.exitCode).toBe(ExitCode.passed);
    expect(cli.stdout()).toMatch(/running\s+clients 5 +msgs\/s out 50 in 50 +p99 3\.00 ms/);
    expect(cli.stdout()).toMatch(/rtt-p99-ms 3(\.\d+)? ms, must be below 50 ms: pass/);
    expect(cli.stdout()).toMatch(/verdict: PASSED \(the load ran as planned; every SLO met \(1\)\)/);
    const json = JSON.parse(await readFile(join(dir, "out.json"), "utf8"));
    expect(RunView.parse(json.run)).toMatchObject({ id: runId, status: "finished" });
    expect(json.verdict).toMatchObject({ passed: true, slos: [{ metric: "rtt-p99-ms", below: 50, passed: true }] });
    expect(json.verdict.slos[0].value).toBeCloseTo(3, 1);
    expect(json.summary).toMatchObject({ peakClients: 5, messagesReceived: 100 });
    const junit = await readFile(join(dir, "junit.xml"), "utf8");
    expect(junit).toContain(`tests="2" failures="0" errors="0"`);
    expect(`${cli.stdout()}${cli.stderr()}`).not.toContain(org.token);
    await agent.close();
  });

  it("exits 99 when an SLO is breached, with a JUnit failure carrying the value and threshold", async () => {
    const org = await orgWithToken("Slow");
    const { agent, orgId } = await onlineAgent(org);
    const { dir, plan } = await planDir(PLAN_YAML);
    const cli = startCli(runArgs(org, plan, "--wait", "--junit", join(dir, "junit.xml")));
    await playRun(cli, agent, orgId, 80);
    expect(await cli.exitCode).toBe(ExitCode.sloBreached);
    expect(cli.stdout()).toMatch(/verdict: FAILED — SLO breached: rtt-p99-ms/);
    const junit = await readFile(join(dir, "junit.xml"), "utf8");
    expect(junit).toContain(`failures="1" errors="0"`);
    expect(junit).toMatch(
      /<failure type="slo-breached" message="rtt-p99-ms was 80(\.\d+)? ms, threshold below 50 ms">measured 80(\.\d+)? over the run \(threshold: below 50\); 2 of 2 s breached/,
    );
    await agent.close();
  });

  it("exits 4 with the server's message when no agent is online", async () => {
    const org = await orgWithToken("Lonely");
    const { plan } = await planDir(PLAN_YAML);
    const cli = startCli(runArgs(org, plan, "--wait"));
    expect(await cli.exitCode).toBe(ExitCode.noCapacity);
    expect(cli.stderr()).toMatch(/^error: .*agent/im);
  });

  it("exits 4 when the organisation's limits refuse the plan, naming the field", async () => {
    const org = await orgWithToken("Capped");
    const { agent } = await onlineAgent(org);
    expect(
      (await org.user.request("PUT", "/api/org/settings", { targetAllowList: [], maxClients: 2, maxDurationSec: 60 }))
        .status,
    ).toBe(200);
    const { plan } = await planDir(PLAN_YAML);
    const cli = startCli(runArgs(org, plan, "--wait"));
    expect(await cli.exitCode).toBe(ExitCode.noCapacity);
    expect(cli.stderr()).toMatch(/load\.clients: exceeds this organisation's cap of 2 clients/);
    await agent.close();
  });

  it("exits 3 for a token the server refuses, without printing it", async () => {
    const { plan } = await planDir(PLAN_YAML);
    const token = "thr_api_notarealtoken0000000000000000_abcdef";
    const cli = startCli(["run", plan, "--server", api.url, "--wait"], { token });
    expect(await cli.exitCode).toBe(ExitCode.unauthenticated);
    expect(cli.stderr()).toMatch(/^error: /m);
    expect(`${cli.stdout()}${cli.stderr()}`).not.toContain(token);
  });

  it("exits 6 when the server cannot be reached", async () => {
    const { plan } = await planDir(PLAN_YAML);
    const cli = startCli(["run", plan, "--wait"], { server: "http://127.0.0.1:1", token: "thr_api_x" });
    expect(await cli.exitCode).toBe(ExitCode.unreachable);
    expect(cli.stderr()).toMatch(/cannot reach the Throng API at http:\/\/127\.0\.0\.1:1 .*check --server/);
  });

  it("exits 130 on Ctrl-C while waiting, after aborting the run", async () => {
    const org = await orgWithToken("Impatient");
    const { agent, orgId } = await onlineAgent(org);
    const { dir, plan } = await planDir(PLAN_YAML);
    const cli = startCli(runArgs(org, plan, "--wait", "--junit", join(dir, "junit.xml")));
    const runId = (await cli.waitFor(/^run (\S+) queued/m))[1]!;
    await api.deps.orchestrator.start(orgId, runId);
    await agent.next("run-assignment");
    await cli.waitFor(/^ +\d+s (preparing|running)/m);
    cli.interrupt();
    expect(await cli.exitCode).toBe(ExitCode.interrupted);
    expect(cli.stderr()).toMatch(/interrupted: aborting the run\naborted run/);
    expect(RunView.parse((await org.user.request("GET", `/api/runs/${runId}`)).json).status).toBe("aborted");
    expect(await readFile(join(dir, "junit.xml"), "utf8")).toContain(`<error type="aborted"`);
    await agent.close();
  });

  it("without --wait prints the run id and a dashboard link and exits 0", async () => {
    const org = await orgWithToken("Fire");
    const { agent } = await onlineAgent(org);
    const { plan } = await planDir(PLAN_YAML);
    const cli = startCli(runArgs(org, plan, "--dashboard", "http://localhost:3000/"));
    expect(await cli.exitCode).toBe(ExitCode.passed);
    const runId = (await cli.waitFor(/^run (\S+) queued/m))[1]!;
    expect(cli.stdout()).toContain(`follow it at http://localhost:3000/runs/${runId}`);
    expect(RunView.parse((await org.user.request("GET", `/api/runs/${runId}`)).json).status).toBe("queued");
    await agent.close();
  });

  it("--tag and --note set the started run's tags and note, in the token's name", async () => {
    const org = await orgWithToken("Tagger");
    const { agent } = await onlineAgent(org);
    const { plan } = await planDir(PLAN_YAML);
    const cli = startCli(
      runArgs(
        org,
        plan,
        "--tag",
        "nightly",
        "--tag",
        "release-1.4",
        "--tag",
        "nightly",
        "--note",
        "commit abc123\nfrom CI",
      ),
    );
    expect(await cli.exitCode, cli.stderr()).toBe(ExitCode.passed);
    const runId = (await cli.waitFor(/^run (\S+) queued/m))[1]!;
    const run = RunView.parse((await org.user.request("GET", `/api/runs/${runId}`)).json);
    expect(run).toMatchObject({
      tags: ["nightly", "release-1.4"],
      note: "commit abc123\nfrom CI",
      notesEditedBy: "token ci",
    });
    expect(
      (await org.user.request<RunPage>("GET", "/api/runs?tag=release-1.4")).json.runs.map((r: { id: string }) => r.id),
    ).toEqual([runId]);
    expect((await org.user.request("POST", `/api/runs/${runId}/abort`)).status).toBe(200);
    await agent.close();
  });

  it("--plan-name keeps every run on one plan: the first run creates it, the next adds a version, an archived one is not reused", async () => {
    const org = await orgWithToken("Gail");
    const { agent } = await onlineAgent(org);
    const { plan } = await planDir(PLAN_YAML);
    const runOnce = async () => {
      const cli = startCli(runArgs(org, plan, "--plan-name", "ci smoke"));
      expect(await cli.exitCode, cli.stderr()).toBe(ExitCode.passed);
      const runId = (await cli.waitFor(/^run (\S+) queued \(plan "ci smoke"\)/m))[1]!;
      return RunView.parse((await org.user.request("GET", `/api/runs/${runId}`)).json);
    };
    const first = await runOnce();
    const second = await runOnce();
    expect(second.planId).toBe(first.planId);
    expect([first.planVersion, second.planVersion]).toEqual([1, 2]);
    const plans = (await org.user.request<{ plans: PlanView[] }>("GET", "/api/plans")).json.plans as {
      id: string;
      name: string;
    }[];
    expect(plans.filter((p) => p.name === "ci smoke").map((p) => p.id)).toEqual([first.planId]);

    // Archived, the name is free: the next CI run starts a fresh plan and the archived one keeps its runs.
    expect((await org.user.request("POST", `/api/runs/${second.id}/abort`)).status).toBe(200);
    expect((await org.user.request("POST", `/api/runs/${first.id}/abort`)).status).toBe(200);
    expect((await org.user.request("POST", `/api/plans/${first.planId}/archive`)).status).toBe(200);
    const third = await runOnce();
    expect(third.planId).not.toBe(first.planId);
    expect(third.planVersion).toBe(1);
    expect((await org.user.request<RunView>("GET", `/api/runs/${first.id}`)).json.planId).toBe(first.planId);
    await agent.close();
  });
});
