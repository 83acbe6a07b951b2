// A latency metric's distribution and heatmap (issue 28 §1): GET /api/runs/:id/distribution merges the stored
// per-second histograms of the run or of a range, answers only its own organisation, and names a bad query field;
// its share-link twin answers the same for the link's run and refuses a revoked or forged link.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { LatencyDistribution } from "@throng/protocol/latency-distribution";
import { RunView } from "@throng/protocol/run";
import { ShareLinkCreated } from "@throng/protocol/report";
import { encodeValues } from "@throng/core/metrics/histogram";
import type { TestAgent } from "./testing/test-agent";
import { startApiWithAgent } from "./testing/api-with-agent";
import type { TestApi, TestUser } from "./testing/test-api";
import { heldSnapshot } from "./testing/snapshots";
import { queuedRun } from "./testing/plans";

let api: TestApi;
let user: TestUser;
let agent: TestAgent;
let orgId: string;
let runId: string;
const SECONDS = 6;

/** Second `seq`'s round trips: 100 samples, 10 of them slow (`seq` + 1 × 10 ms), so each second's mix differs. */
const rttValues = (seq: number) => [...Array(90).fill(1_000 + seq * 100), ...Array(10).fill((seq + 1) * 10_000)];

beforeAll(async () => {
  ({ api, user, agent, orgId } = await startApiWithAgent("Dist"));

  const run = await queuedRun(user, { name: "distribution", load: { clients: 5, durationSec: SECONDS } });
  runId = run.id;
  await api.deps.orchestrator.start(orgId, run.id);
  const assignment = await agent.next("run-assignment");
  for (let seq = 0; seq < SECONDS; seq++) {
    agent.send({
      type: "snapshot",
      payload: heldSnapshot(assignment, seq, 5, {
        counters: { messagesSent: 100, messagesReceived: 100, bytesSent: 6400, bytesReceived: 6400 },
        histograms: {
          rttUs: encodeValues(rttValues(seq)),
          ...(seq === 0 && { connectUs: encodeValues([2_000, 3_000, 4_000, 5_000, 6_000]) }),
        },
      }),
    });
    await agent.next("snapshot-ack");
  }
  agent.send({ type: "shard-status", payload: { runId, state: "finished", lastSeq: SECONDS - 1 } });
  await vi.waitFor(
    async () => {
      await api.deps.orchestrator.finish(orgId, runId);
      expect(RunView.parse((await user.request("GET", `/api/runs/${runId}`)).json).status).toBe("finished");
    },
    { timeout: 20_000, interval: 200 },
  );
});
afterAll(async () => {
  await agent?.close();
  await api?.close();
});

describe("GET /api/runs/:id/distribution", () => {
  it("answers the whole run's round trips merged: buckets summing to every sample, the run's p99, one heatmap column a second", async () => {
    const answer = await user.request("GET", `/api/runs/${runId}/distribution?metric=rtt`);
    expect(answer.status).toBe(200);
    const distribution = LatencyDistribution.parse(answer.json);
    expect(distribution.stats.count).toBe(SECONDS * 100);
    expect(distribution.counts.reduce((a, b) => a + b, 0)).toBe(SECONDS * 100);
    const run = RunView.parse((await user.request("GET", `/api/runs/${runId}`)).json);
    expect(distribution.stats.p99Ms).toBe(run.summary!.rttP99Ms);
    expect(distribution.heatmap.counts).toHaveLength(SECONDS);
    expect(distribution.heatmap.counts.map((column) => column.reduce((a, b) => a + b, 0))).toEqual(
      Array(SECONDS).fill(100),
    );
    expect(distribution).toMatchObject({ from: 0, to: SECONDS });
  });

  it("reads only the seconds of a range, and another histogram by its name", async () => {
    const range = LatencyDistribution.parse(
      (await user.request("GET", `/api/runs/${runId}/distribution?metric=rtt&from=2&to=4`)).json,
    );
    expect(range.stats.count).toBe(200);
    expect(range.heatmap.columnStart).toEqual([2, 3]);
    // Seconds 2 and 3: the slow tenth at 30 and 40 ms, so the max is the 40 ms bucket's.
    expect(range.stats.maxMs).toBeGreaterThanOrEqual(40);
    expect(range.stats.maxMs).toBeLessThan(40.1);
    const connects = LatencyDistribution.parse(
      (await user.request("GET", `/api/runs/${runId}/distribution?metric=connect`)).json,
    );
    expect(connects.stats).toMatchObject({ count: 5 });
    const none = LatencyDistribution.parse(
      (await user.request("GET", `/api/runs/${runId}/distribution?metric=script:reply-ms`)).json,
    );
    expect(none.stats.count).toBe(0);
  });

  it("refuses a metric it does not know and a half range with 400 naming the field", async () => {
    const bad = await user.request("GET", `/api/runs/${runId}/distribution?metric=p99`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json)).toMatch(
      /metric must be rtt, rttCorrected, connect, login, broadcast, jitter or script:NAME/,
    );
    const missing = await user.request("GET", `/api/runs/${runId}/distribution`);
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.json)).toMatch(/metric/);
    const half = await user.request("GET", `/api/runs/${runId}/distribution?metric=rtt&from=3`);
    expect(half.status).toBe(400);
    expect(JSON.stringify(half.json)).toMatch(/from and to together/);
  });

  it("answers 404 to another organisation's member", async () => {
    const stranger = await api.signUp("Elsewhere");
    const answer = await stranger.request("GET", `/api/runs/${runId}/distribution?metric=rtt`);
    expect(answer.status).toBe(404);
    expect(JSON.stringify(answer.json)).not.toMatch(/count/);
  });
});

describe("GET /api/public/reports/:token/distribution", () => {
  it("answers the shared run's distribution as the signed-in route does, for the run and a range", async () => {
    const link = ShareLinkCreated.parse((await user.request("POST", `/api/runs/${runId}/share-links`, {})).json);
    for (const query of ["metric=rtt", "metric=rtt&from=2&to=4", "metric=connect"]) {
      const shared = await fetch(`${api.url}/api/public/reports/${link.token}/distribution?${query}`);
      expect(shared.status, query).toBe(200);
      const signedIn = (await user.request("GET", `/api/runs/${runId}/distribution?${query}`)).json;
      expect(LatencyDistribution.parse(await shared.json()), query).toEqual(LatencyDistribution.parse(signedIn));
    }
    const half = await fetch(`${api.url}/api/public/reports/${link.token}/distribution?metric=rtt&from=3`);
    expect(half.status).toBe(400);
    expect(await half.text()).toMatch(/from and to together/);
  });

  it("refuses a forged or revoked link with the report's own 404, saying nothing of the run", async () => {
    const link = ShareLinkCreated.parse((await user.request("POST", `/api/runs/${runId}/share-links`, {})).json);
    expect((await user.request("DELETE", `/api/share-links/${link.id}`)).status).toBe(204);
    for (const token of [link.token, "thr_shr_forged_abcdef"]) {
      const refused = await fetch(`${api.url}/api/public/reports/${token}/distribution?metric=rtt`);
      expect(refused.status, token).toBe(404);
      const body = await refused.text();
      expect(body).toMatch(/unknown, expired or revoked/);
      expect(body).not.toMatch(/count|runId/);
    }
  });
});
