import { createServer, type IncomingMessage, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PlanSpec } from "@throng/protocol/plan";
import { seedOrg } from "@throng/core/db-seed.test-support";
import { startWorkersBed, type WorkersBed } from "./workers-bed.test-support";

/**
 * Notifications from the workers (issue 18): when a run ends, each channel that wants it gets one real HTTP POST on
 * loopback (our JSON for a webhook, `{ text }` for Slack), and an endpoint that fails is retried by the queue.
 */
const spec = {
  name: "nightly soak",
  target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
  scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 },
  load: { clients: 9, durationSec: 1, rampUpSec: 0 },
};

interface Received {
  path: string;
  body: unknown;
  contentType: string | undefined;
}

let bed: WorkersBed;
let server: Server;
let endpoint = "";
const received: Received[] = [];
/** Per path, the statuses to answer in turn (then 200). */
const answers = new Map<string, number[]>();

async function readBody(request: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of request) text += chunk;
  return text;
}

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const path = request.url ?? "/";
    received.push({ path, body: JSON.parse(await readBody(request)), contentType: request.headers["content-type"] });
    response.statusCode = answers.get(path)?.shift() ?? 200;
    response.end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  // Short waits between retries here; the shipped queue waits 2 s, then doubles.
  bed = await startWorkersBed({ redisName: "n", notifyBackoffMs: 50, dashboardUrl: "http://dash.example" });
});
afterAll(async () => {
  await bed?.stop();
  await new Promise((resolve) => server?.close(resolve));
});

/** An org with a run that has already failed (the end a notification reports). */
async function seedFailedRun() {
  const { repos } = bed;
  const orgId = await seedOrg(bed.db);
  const planId = crypto.randomUUID();
  await repos.plans.insert(orgId, { id: planId, name: spec.name, spec: PlanSpec.parse(spec) });
  const runId = crypto.randomUUID();
  await repos.runs.insert(orgId, { id: runId, planId, spec: PlanSpec.parse(spec), status: "queued" });
  await repos.runs.update(orgId, runId, "queued", {
    status: "failed",
    error: "No agent is online",
    endedAt: new Date(),
  });
  return { orgId, runId };
}

async function channel(orgId: string, kind: "webhook" | "slack", path: string, events: string[]) {
  return bed.repos.notifications.insertChannel(orgId, {
    id: crypto.randomUUID(),
    kind,
    name: `${kind} ${path}`,
    url: `${endpoint}${path}`,
    events,
  });
}

/** The org's delivery log once it holds `count` rows all `status` ("settled": none pending). */
async function deliveries(orgId: string, count: number, status: "delivered" | "settled") {
  let rows = await bed.repos.notifications.listDeliveries(orgId);
  // Bounded: 150 looks, 100 ms apart.
  const done = (row: { status: string }) => (status === "settled" ? row.status !== "pending" : row.status === status);
  for (let i = 0; i < 150 && !(rows.length === count && rows.every(done)); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    rows = await bed.repos.notifications.listDeliveries(orgId);
  }
  return rows;
}

describe("run notifications, delivered by the workers over real HTTP on loopback", () => {
  it("a failed run is announced once to each channel that wants it (failed-only and every-end alike): our JSON to a webhook, { text } to Slack", async () => {
    const { orgId, runId } = await seedFailedRun();
    await channel(orgId, "webhook", `/hook-${runId}`, ["failed"]);
    await channel(orgId, "slack", `/slack-${runId}`, ["finished"]);
    // Closing twice (a repeated job) must not notify twice.
    await bed.runQueue.jobs.finishRun({ orgId, runId }, 0, "planned-end");
    await bed.runQueue.jobs.finishRun({ orgId, runId }, 0, "all-shards-done");

    const rows = await deliveries(orgId, 2, "delivered");
    expect(rows.map((row) => [row.status, row.attempts, row.responseStatus])).toEqual([
      ["delivered", 1, 200],
      ["delivered", 1, 200],
    ]);
    const webhook = received.filter((r) => r.path === `/hook-${runId}`);
    const slack = received.filter((r) => r.path === `/slack-${runId}`);
    expect(webhook).toHaveLength(1);
    expect(webhook[0]!.contentType).toBe("application/json");
    expect(webhook[0]!.body).toEqual({
      event: "run-ended",
      run: {
        id: runId,
        planName: "nightly soak",
        status: "failed",
        outcome: null,
        error: "No agent is online",
        url: `http://dash.example/runs/${runId}`,
      },
      text: `Run of "nightly soak" failed: No agent is online. http://dash.example/runs/${runId}`,
    });
    expect(slack.map((r) => r.body)).toEqual([
      { text: `Run of "nightly soak" failed: No agent is online. http://dash.example/runs/${runId}` },
    ]);
  }, 30_000);

  it("retries an endpoint that fails (500, then 200) and logs both attempts; one that keeps failing is marked failed", async () => {
    const { orgId, runId } = await seedFailedRun();
    answers.set(`/flaky-${runId}`, [500]);
    answers.set(`/down-${runId}`, [503, 503, 503, 503, 503]);
    const flaky = await channel(orgId, "webhook", `/flaky-${runId}`, ["failed"]);
    await channel(orgId, "webhook", `/down-${runId}`, ["failed"]);
    await bed.runQueue.jobs.finishRun({ orgId, runId }, 0, "planned-end");

    const rows = await deliveries(orgId, 2, "settled");
    expect(rows.find((row) => row.channelId === flaky.id)).toMatchObject({
      status: "delivered",
      attempts: 2,
      responseStatus: 200,
      lastError: null,
    });
    expect(received.filter((r) => r.path === `/flaky-${runId}`)).toHaveLength(2);
    expect(rows.find((row) => row.channelId !== flaky.id)).toMatchObject({
      status: "failed",
      attempts: 5,
      responseStatus: 503,
      lastError: "the endpoint answered HTTP 503",
    });
    expect(received.filter((r) => r.path === `/down-${runId}`)).toHaveLength(5);
  }, 60_000);
});
