import type { ChildProcess } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import type { PlanSpecInput } from "@throng/protocol/plan";
import { RunErrorSamples, type ErrorSampleView } from "@throng/protocol/error-samples";
import { RunReport, RunView } from "@throng/protocol/run";
import { freeLoopbackPort, startRedisServer } from "@throng/agent/testing/redis-server";
import { signUp, waitForStatus, type Browser } from "./fault/support/api-client";
import { startControlPlane, startEnrolledAgent, type ControlPlane } from "./support/control-plane";
import { cleanUpAfterFile, tempDirFor } from "./support/file-cleanups";
import { redisScenario, redisTarget } from "./support/redis-plans";

/**
 * Errors you can read (issue 28 §2, agent/PROTOCOL.md §5.2): a real agent of two engines, under the real api and
 * workers, against a real redis-server that answers what the plan does not expect and a port nobody listens on. The
 * samples its engines kept come back from GET /api/runs/:id/errors and the report, with the bytes that caused them,
 * distinct, bounded per kind, secrets masked, and only to the run's own organisation and its share link.
 */
const { cleanups, tails } = cleanUpAfterFile();
const SECRET = "hunter2-sesame";
let plane: ControlPlane;
let browser: Browser;
let redis: ChildProcess | undefined;
let redisPort = 0;

const hex = (text: string) => Buffer.from(text).toString("hex");
const text = (sample: ErrorSampleView) => Buffer.from(sample.bytes?.hex ?? "", "hex").toString("latin1");
const failure = () => tails.map((t) => t()).join("\n");

beforeAll(async () => {
  ({ port: redisPort, process: redis } = await startRedisServer());
  cleanups.push(async () => redis?.kill());
  plane = await startControlPlane(cleanups, tails);
  browser = await signUp(plane.apiUrl);
  await browser.request("PUT", "/api/secrets/REDIS_WORD", { value: SECRET });
  const dir = await tempDirFor(cleanups, "throng-errors-");
  await startEnrolledAgent(plane, browser, dir, cleanups, tails, ["--engines", "2"]);
}, 240_000);

async function runPlan(plan: PlanSpecInput): Promise<RunView> {
  const saved = await browser.request<{ id: string }>("POST", "/api/plans", plan);
  const started = RunView.parse(await browser.request("POST", `/api/plans/${saved.id}/runs`));
  const { run } = await waitForStatus(browser, started.id, ["finished", "failed", "aborted"], 90_000);
  return run;
}
const samplesOf = async (runId: string, who = browser) =>
  RunErrorSamples.parse(await who.request("GET", `/api/runs/${runId}/errors`));
// Long enough for engine processes forked late on a busy machine to get their clients in.
const load = { clients: 6, durationSec: 15, rampUpSec: 0 };
const agents = { labels: {}, onLost: "continue" as const };

describe("error samples from the agent to the report", () => {
  it("a session Redis rejects keeps one session-rejected sample with Redis's reply as text and hex, its secret masked, for the org and its share link only", async () => {
    const run = await runPlan({
      name: "errors: rejected",
      target: redisTarget(redisPort),
      // Redis answers an unknown command naming it: "-ERR unknown command 'hunter2-sesame', with args beginning with: 'x' ".
      scenario: redisScenario(200, "PING", {
        session: [
          { kind: "send", message: { body: "{{secrets.REDIS_WORD}} x" } },
          { kind: "expect", reply: { prefixHex: hex("+OK") }, failWhen: { regex: "^-" } },
        ],
      }),
      load,
      agents,
    });
    expect(run.summary?.errorsByKind, `${run.error} ${failure()}`).toEqual({ "session-rejected": 6 });
    const { samples, perKind } = await samplesOf(run.id);
    expect(perKind).toBe(100);
    // Six clients on two engines got the same reply: one distinct sample.
    expect(samples).toHaveLength(1);
    const [sample] = samples;
    expect(sample).toMatchObject({
      kind: "session-rejected",
      message: "session step 1 (expect): the reply matched failWhen",
    });
    expect(sample!.client).toBeGreaterThanOrEqual(0);
    expect(sample!.client).toBeLessThan(6);
    expect(sample!.sinceStartMs).toBeGreaterThanOrEqual(0);
    expect(sample!.sinceStartMs).toBeLessThan(15_000);
    expect(text(sample!)).toBe(`-ERR unknown command '${"*".repeat(SECRET.length)}', with args beginning with: 'x' `);
    expect(sample!.bytes!.length).toBe(text(sample!).length);
    expect(JSON.stringify(samples)).not.toContain(SECRET);

    // The report carries them (its JSON export, PDF and share page too), and the share link shows the same.
    const report = RunReport.parse(await browser.request("GET", `/api/runs/${run.id}/report`));
    expect(report.errorSamples).toEqual(samples);
    const link = await browser.request<{ token: string }>("POST", `/api/runs/${run.id}/share-links`, {});
    const shared = RunReport.parse(await (await fetch(`${plane.apiUrl}/api/public/reports/${link.token}`)).json());
    expect(shared.errorSamples).toEqual(samples);

    // The errors CSV export carries them too, bytes as hex.
    const csv = await browser.text(`/api/runs/${run.id}/errors.csv`);
    expect(csv.split("\n")[0]).toBe("time,since_start_ms,kind,message,client,agent_id,bytes_length,bytes_hex");
    expect(csv).toContain(
      `session-rejected,session step 1 (expect): the reply matched failWhen,${sample!.client},${sample!.agentId},${sample!.bytes!.length},${sample!.bytes!.hex}`,
    );

    // Another organisation's member gets 404, never the samples.
    const stranger = await signUp(plane.apiUrl);
    await expect(stranger.request("GET", `/api/runs/${run.id}/errors`)).rejects.toThrow(/answered 404/);
  }, 120_000);

  it("replies the plan calls bad keep their first 100 distinct bytes (INCR's :1, :2 …), each once though both engines sent theirs", async () => {
    const run = await runPlan({
      name: "errors: bad replies",
      target: redisTarget(redisPort),
      scenario: redisScenario(100, "INCR errors:counter", { reply: { expect: { prefixHex: hex("+PONG") } } }),
      load,
      agents,
    });
    const counted = run.summary?.errorsByKind?.["bad-reply"] ?? 0;
    expect(counted, `${run.error} ${failure()}`).toBeGreaterThan(100);
    const { samples } = await samplesOf(run.id);
    expect(samples).toHaveLength(100);
    expect(new Set(samples.map((s) => s.bytes?.hex)).size).toBe(100);
    for (const sample of samples) {
      expect(sample.kind).toBe("bad-reply");
      expect(text(sample)).toMatch(/^:\d+$/);
    }
  }, 120_000);

  it("a port nobody listens on keeps the operating system's refusal, naming the address, with the client", async () => {
    const closed = await freeLoopbackPort();
    const run = await runPlan({
      name: "errors: refused",
      target: redisTarget(closed),
      scenario: redisScenario(200, "PING"),
      load: { ...load, clients: 3 },
      agents,
    });
    const { samples } = await samplesOf(run.id);
    expect(samples.length, failure()).toBeGreaterThanOrEqual(1);
    for (const sample of samples) {
      expect(sample.kind).toBe("refused");
      expect(sample.message).toContain(`ECONNREFUSED 127.0.0.1:${closed}`);
      expect(sample.bytes).toBeUndefined();
    }
    expect(samples.every((s) => s.client !== undefined && s.client < 3)).toBe(true);
  }, 120_000);
});
