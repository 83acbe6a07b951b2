import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ErrorBody } from "@throng/protocol/errors";
import { RunView } from "@throng/protocol/run";
import { RunRangeSummary } from "@throng/protocol/run-range";
import { ShareLinkCreated } from "@throng/protocol/report";
import { encodeValues } from "@throng/core/metrics/histogram";
import type { TestAgent } from "./testing/test-agent";
import { startApiWithAgent } from "./testing/api-with-agent";
import type { TestApi, TestUser } from "./testing/test-api";
import { heldSnapshot } from "./testing/snapshots";
import { playShardToTheEnd } from "./testing/played-shard";
import { queuedRun } from "./testing/plans";

let api: TestApi;
let user: TestUser;
let agent: TestAgent;
let orgId: string;
let runId: string;
let made: Promise<string> | null = null;
/** The one run every test reads, made by the first test that asks (expect.poll runs only inside a test). */
const spikeRun = async () => {
  made ??= finishedRunWithSpike();
  runId = await made;
  return runId;
};

const SECONDS = 6;
const SPIKE_SECOND = 3;

beforeAll(async () => {
  ({ api, user, agent, orgId } = await startApiWithAgent("Zoomer"));
});
afterAll(async () => {
  await agent?.close();
  await api?.close();
});

/** Six seconds of 100 round trips at 1 ms; in second 3, 5 of them take 200 ms. */
async function finishedRunWithSpike(): Promise<string> {
  const run = await queuedRun(user, { name: "a spike in the middle", load: { clients: 5, durationSec: SECONDS } });
  await api.deps.orchestrator.start(orgId, run.id);
  const assignment = await agent.next("run-assignment");
  await playShardToTheEnd({ api, user, agent, orgId }, run.id, SECONDS, (seq) => {
    const values =
      seq === SPIKE_SECOND ? [...Array(95).fill(1_000), ...Array(5).fill(200_000)] : Array(100).fill(1_000);
    return heldSnapshot(assignment, seq, 5, {
      counters: { messagesSent: 100, messagesReceived: 100, bytesSent: 6400, bytesReceived: 6400 },
      histograms: { rttUs: encodeValues(values) },
    });
  });
  return run.id;
}

const rangeOf = async (caller: TestUser, from: number | string, to: number | string) =>
  caller.request("GET", `/api/runs/${runId}/summary?from=${from}&to=${to}`);

describe("GET /api/runs/:id/summary: a run's summary over a range of its seconds", () => {
  it("is the run's own summary over the whole run, and a spike's p99 over a range around it", async () => {
    await spikeRun();
    const run = RunView.parse((await user.request("GET", `/api/runs/${runId}`)).json);
    const whole = RunRangeSummary.parse((await rangeOf(user, 0, SECONDS)).json);
    expect(whole).toMatchObject({ runId, from: 0, to: SECONDS, seconds: SECONDS });
    expect(whole.summary).toEqual(run.summary);
    // 5 slow of 600: under 1 %, the run's p99 hides them; in seconds 2-4 they are 5 of 300, so p99 is theirs.
    expect(run.summary!.rttP99Ms).toBeLessThan(2);
    const around = RunRangeSummary.parse((await rangeOf(user, 2, 5)).json);
    expect(around.seconds).toBe(3);
    expect(around.summary!.rttP99Ms).toBeGreaterThan(195);
    expect(around.summary!.roundTrips).toBe(300);
    const after = RunRangeSummary.parse((await rangeOf(user, SPIKE_SECOND + 1, SECONDS)).json);
    expect(after.summary!.rttMaxMs).toBeLessThan(2);
    expect(RunRangeSummary.parse((await rangeOf(user, 60, 90)).json)).toMatchObject({ seconds: 0, summary: null });
  });

  it("refuses a range it cannot read with 400 naming the field and what to send", async () => {
    await spikeRun();
    const cases: [string, string][] = [
      ["from=abc&to=5", "from"],
      ["from=-1&to=5", "from"],
      ["from=1.5&to=5", "from"],
      ["to=5", "from"],
      ["from=1", "to"],
      ["from=5&to=5", "to"],
      ["from=5&to=2", "to"],
      ["from=0&to=5&step=1", "(root)"],
    ];
    for (const [query, field] of cases) {
      const answer = await user.request<ErrorBody>("GET", `/api/runs/${runId}/summary?${query}`);
      expect({ query, status: answer.status, field: answer.json.error?.fields?.[0]?.path }).toEqual({
        query,
        status: 400,
        field,
      });
      expect(answer.json.error.message).toMatch(
        field === "(root)" ? /step/ : new RegExp(`${field} must|${field} is required`),
      );
    }
  });

  it("is another organisation's run only to its members: 404 to anyone else", async () => {
    await spikeRun();
    const intruder = await api.signUp("Intruder");
    const refused = await rangeOf(intruder, 0, SECONDS);
    expect(refused.status).toBe(404);
    expect(JSON.stringify(refused.json)).not.toContain("rttP99Ms");
  });

  it("answers for the run behind a share link, without signing in, and refuses an unknown link", async () => {
    await spikeRun();
    const link = ShareLinkCreated.parse((await user.request("POST", `/api/runs/${runId}/share-links`, {})).json);
    const shared = await fetch(`${api.url}/api/public/reports/${link.token}/summary?from=2&to=5`);
    expect(shared.status).toBe(200);
    expect(RunRangeSummary.parse(await shared.json()).summary!.rttP99Ms).toBeGreaterThan(195);
    const unknown = await fetch(`${api.url}/api/public/reports/thr_shr_nope_abcdef/summary?from=2&to=5`);
    expect(unknown.status).toBe(404);
  });
});
