import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "@throng/db/vitest-database";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { seedRunningRun } from "../db-seed.test-support";
import type { Jobs } from "../ports";
import type { Actor } from "../orgs/permissions";
import type { ExportSeries } from "./export-series";
import { createMetricsExportService, type MetricsPush } from "./metrics-export-service";
import { createSealer, credentialsKey } from "./sealed-secrets";
import { PlanSpec } from "@throng/protocol/plan";
import { planInput } from "@throng/protocol/plan-spec.test-support";
import { seriesPoint } from "@throng/protocol/series-point.test-support";
import { PutMetricsExportSink } from "@throng/protocol/metrics-export";

const { db, repos } = await useTestDatabase({ max: 3 });

const baseSpec = planInput({ load: { clients: 2, durationSec: 10, rampUpSec: 0 } });
/** A second of both shards' two clients at 20 messages a second, `agents` of them reporting. */
const point = (t: number, agents: number): SeriesPoint =>
  seriesPoint({ t, agents, clients: 2, connections: 2, messagesSentPerSec: 20, messagesReceivedPerSec: 20 });

/** An org with both sinks set up, a running run of a plan (exporting as `exports` says) with two load shards and stored seconds. */
async function seed(exports: Record<string, boolean> | undefined, seconds: SeriesPoint[]) {
  const spec = PlanSpec.parse({ ...baseSpec, ...(exports ? { export: exports } : {}) });
  const { orgId, runId } = await seedRunningRun(db, repos, spec);
  for (const p of seconds) await repos.snapshots.upsertSecond(orgId, runId, p.t, p);
  const owner: Actor = { orgId, role: "owner", userId: "u", label: "owner@example.com", via: "session" };
  return { orgId, runId, owner };
}

function harness(push: MetricsPush, nowMs: number) {
  const queued: { runId: string; delayMs: number; key: string }[] = [];
  const jobs = {
    exportRunSeries: async (job: { runId: string }, delayMs: number, key: string) =>
      void queued.push({ runId: job.runId, delayMs, key }),
    testMetricsExport: async () => undefined,
  } as unknown as Jobs;
  const clock = { now: () => nowMs };
  const sealer = createSealer(credentialsKey({ authSecret: randomBytes(32).toString("base64") }));
  return { queued, service: createMetricsExportService({ repos, jobs, sealer, clock, push }) };
}

// Sinks on a loopback port nothing listens on: the pushes under test go to the recorder, never to them.
const PROMETHEUS_URL = "http://127.0.0.1:9/api/v1/write";
const OTLP_URL = "http://127.0.0.1:9/v1/metrics";
/** A sink's settings as the settings page saves them. */
const sink = (url: string, more: object = {}) => PutMetricsExportSink.parse({ url, ...more });

const recorder = () => {
  const pushes: { sink: string; authorization: string | null; series: ExportSeries[] }[] = [];
  const push: MetricsPush = async (sink, target, series) =>
    void pushes.push({ sink, authorization: target.authorization, series });
  return { pushes, push };
};
const seconds = (series: ExportSeries[]) =>
  series.find((s) => s.name === "throng_connections")?.samples.map((s) => s.timestampMs / 1000) ?? [];

describe("metrics export service (real PostgreSQL)", () => {
  it("a run whose plan does not export pushes nothing and queues nothing, though the org has sinks", async () => {
    const { pushes, push } = recorder();
    const { queued, service } = harness(push, 100_000);
    const { orgId, runId, owner } = await seed(undefined, [point(10, 2)]);
    await service.putSink(owner, "prometheus", sink(PROMETHEUS_URL));
    await service.runStarted(orgId, runId);
    await service.pushRun(orgId, runId);
    await service.runEnded(orgId, runId);
    expect({ pushes, queued }).toEqual({ pushes: [], queued: [] });
  });

  it("a live run sends its complete seconds once, in order, to the sinks its plan turned on, with the sink's credentials", async () => {
    const { pushes, push } = recorder();
    const { queued, service } = harness(push, 100_000);
    const { orgId, runId, owner } = await seed({ otlp: true }, [
      point(10, 2),
      point(11, 2),
      point(12, 1),
      point(13, 2),
    ]);
    await service.putSink(owner, "prometheus", sink(PROMETHEUS_URL));
    await service.putSink(owner, "otlp", sink(OTLP_URL, { auth: { kind: "bearer", token: "tok" } }));
    await service.runStarted(orgId, runId);
    expect(queued).toEqual([{ runId, delayMs: 5_000, key: "start" }]);
    await service.pushRun(orgId, runId);
    expect(pushes.map((p) => [p.sink, p.authorization, seconds(p.series)])).toEqual([["otlp", "Bearer tok", [10, 11]]]);
    await service.pushRun(orgId, runId); // a job run twice: nothing new to send
    expect(pushes).toHaveLength(1);
    await repos.snapshots.upsertSecond(orgId, runId, 12, point(12, 2)); // the late agent's snapshot came in
    await service.pushRun(orgId, runId);
    expect(seconds(pushes[1]!.series)).toEqual([12, 13]);
    const sentTotal = pushes[1]!.series.find((s) => s.name === "throng_messages_sent_total");
    expect(sentTotal?.kind === "counter" && sentTotal.samples.map((s) => s.value)).toEqual([60, 80]);
    expect(queued.filter((q) => q.key.startsWith("tick-"))).toHaveLength(3);
  });

  it("a refused push is recorded for the settings page and resent from the same second; an ended run's failure is thrown for the queue to retry", async () => {
    let refuse = true;
    const sent: number[][] = [];
    const push: MetricsPush = async (_sink, _target, series) => {
      if (refuse) throw new Error("127.0.0.1:9 answered HTTP 400: out of order sample");
      sent.push(seconds(series));
    };
    const { service } = harness(push, 100_000);
    const { orgId, runId, owner } = await seed({ prometheus: true }, [point(10, 2), point(11, 2)]);
    await service.putSink(owner, "prometheus", sink(PROMETHEUS_URL));
    await service.pushRun(orgId, runId);
    expect((await service.settings(owner)).prometheus).toMatchObject({
      lastSuccessAt: null,
      lastError: "127.0.0.1:9 answered HTTP 400: out of order sample",
    });
    await db
      .updateTable("runs")
      .set({ status: "finished", ended_at: new Date(20_000) })
      .where("id", "=", runId)
      .execute();
    await expect(service.pushRun(orgId, runId)).rejects.toThrow(/prometheus: .*HTTP 400/);
    refuse = false;
    await service.pushRun(orgId, runId);
    expect(sent).toEqual([[10, 11]]);
    expect((await service.settings(owner)).prometheus!.lastSuccessAt).not.toBeNull();
  });

  it("never answers a secret, keeps it when a save leaves it out, and wants a token for bearer auth", async () => {
    const { service } = harness(recorder().push, 100_000);
    const { owner } = await seed(undefined, []);
    const saved = await service.putSink(
      owner,
      "otlp",
      sink(OTLP_URL, {
        auth: { kind: "basic", username: "u", password: "pw-secret" },
        headers: { "X-Key": "hdr-secret" },
      }),
    );
    expect(saved).toMatchObject({ auth: "basic", username: "u", secret: "set", headerNames: ["X-Key"] });
    expect(JSON.stringify(await service.settings(owner))).not.toMatch(/pw-secret|hdr-secret/);
    expect(
      (await service.putSink(owner, "otlp", sink(OTLP_URL, { auth: { kind: "basic", username: "u" } }))).secret,
    ).toBe("set");
    await expect(service.putSink(owner, "otlp", sink(OTLP_URL, { auth: { kind: "bearer" } }))).rejects.toThrow(
      /auth.token/,
    );
    await expect(service.putSink({ ...owner, role: "member" }, "otlp", sink(OTLP_URL))).rejects.toThrow(
      /may not settings: manage/,
    );
  });
});
