import { createServer } from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { addEncoded, emptyHistogram } from "@throng/core/metrics/histogram";
import { RTT_BUCKET_BOUNDS_SEC } from "@throng/core/metrics-export/rtt-buckets";
import { createDb } from "@throng/db/client";
import { MetricsExportSettings, MetricsExportSinkView } from "@throng/protocol/metrics-export";
import type { PlanSpecInput } from "@throng/protocol/plan";
import { RunView, type RunSummary } from "@throng/protocol/run";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { waitUntil } from "../infra/local/wait";
import { getSeries, waitForStatus, type Browser } from "./fault/support/api-client";
import { startRunnableOrg } from "./support/control-plane";
import { startPrometheus, type TestPrometheus } from "./support/prometheus";
import { cleanUpAfterFile, tempDirFor } from "./support/file-cleanups";

/**
 * Run series out to the user's own stack (issue 17), through the real processes: a real run of the reference
 * target by a real agent, its seconds pushed by the workers to a real Prometheus (Debian's, remote-write receiver
 * on) and to a loopback OTLP/HTTP receiver; what arrives must equal the run's own stored series, second by second.
 */
const { cleanups, tails } = cleanUpAfterFile();
const failure = () => tails.map((t) => t()).join("\n");
let browser: Browser;
let prometheus: TestPrometheus;
let databaseUrl = "";
let targetUrl = "";
const otlp = {
  url: "",
  requests: [] as { path: string; headers: Record<string, string | string[] | undefined>; body: unknown }[],
};

// The OTLP/HTTP JSON subset we send (opentelemetry-proto metrics v1): what the receiver decodes the bodies with.
const Attribute = z.object({ key: z.string(), value: z.object({ stringValue: z.string() }) });
const DataPoint = z.object({
  attributes: z.array(Attribute),
  timeUnixNano: z.string().regex(/^\d+$/),
  startTimeUnixNano: z.string().optional(),
  asDouble: z.number(),
});
const Uint64 = z.string().regex(/^\d+$/).transform(Number);
const HistogramPoint = z.object({
  attributes: z.array(Attribute),
  timeUnixNano: z.string().regex(/^\d+$/),
  startTimeUnixNano: z.string().regex(/^\d+$/),
  count: Uint64,
  sum: z.number(),
  bucketCounts: z.array(Uint64),
  explicitBounds: z.array(z.number()),
});
const OtlpRequest = z.object({
  resourceMetrics: z.array(
    z.object({
      resource: z.object({ attributes: z.array(Attribute) }),
      scopeMetrics: z.array(
        z.object({
          scope: z.object({ name: z.string() }),
          metrics: z.array(
            z.object({
              name: z.string(),
              unit: z.string(),
              gauge: z.object({ dataPoints: z.array(DataPoint) }).optional(),
              sum: z
                .object({
                  aggregationTemporality: z.literal(2),
                  isMonotonic: z.literal(true),
                  dataPoints: z.array(DataPoint),
                })
                .optional(),
              histogram: z
                .object({ aggregationTemporality: z.literal(2), dataPoints: z.array(HistogramPoint) })
                .optional(),
            }),
          ),
        }),
      ),
    }),
  ),
});

const otlpMetrics = () =>
  otlp.requests.flatMap((request) =>
    OtlpRequest.parse(request.body).resourceMetrics.flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics)),
  );
const secondOf = (nanos: string) => Number(BigInt(nanos) / 1_000_000_000n);

/** name → "labels as JSON" → second → value, from every OTLP request received. */
function otlpValues(runId: string): Map<string, Map<number, number>> {
  const out = new Map<string, Map<number, number>>();
  for (const metric of otlpMetrics()) {
    for (const point of (metric.gauge ?? metric.sum)?.dataPoints ?? []) {
      const labels = Object.fromEntries(point.attributes.map((a) => [a.key, a.value.stringValue]));
      if (labels.run_id !== runId) continue;
      const key = `${metric.name}${labels.quantile ? `{quantile="${labels.quantile}"}` : ""}`;
      const series = out.get(key) ?? new Map<number, number>();
      series.set(secondOf(point.timeUnixNano), point.asDouble);
      out.set(key, series);
    }
  }
  return out;
}

beforeAll(async () => {
  const dir = await tempDirFor(cleanups, "throng-export-");
  prometheus = await startPrometheus((line) => console.log(line));
  cleanups.push(() => prometheus.stop());
  const server = createServer(async (request, response) => {
    let text = "";
    for await (const chunk of request) text += chunk;
    otlp.requests.push({ path: request.url ?? "/", headers: request.headers, body: JSON.parse(text) });
    response.setHeader("content-type", "application/json");
    response.end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  otlp.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/metrics`;
  const started = await startRunnableOrg(dir, cleanups, tails);
  ({ targetUrl, browser } = started);
  databaseUrl = started.plane.databaseUrl;
}, 180_000);

/** The run the export test ran, for the histogram's checks after it. */
let exported: { runId: string; points: SeriesPoint[]; summary: RunSummary } | undefined;

const settings = async () => MetricsExportSettings.parse(await browser.request("GET", "/api/metrics-export"));

describe("metrics export to Prometheus remote write and OTLP", () => {
  it("keeps credentials sealed at rest and answers only whether they are set", async () => {
    const token = "bearer-token-that-must-stay-secret";
    const view = MetricsExportSinkView.parse(
      await browser.request("PUT", "/api/metrics-export/prometheus", {
        url: prometheus.writeUrl,
        auth: { kind: "bearer", token },
        headers: { "X-Scope-OrgID": "team-a" },
      }),
    );
    expect(view).toMatchObject({ sink: "prometheus", auth: "bearer", secret: "set", headerNames: ["X-Scope-OrgID"] });
    expect(JSON.stringify(await settings())).not.toContain(token);
    MetricsExportSinkView.parse(
      await browser.request("PUT", "/api/metrics-export/otlp", {
        url: otlp.url,
        auth: { kind: "basic", username: "throng", password: "otlp-password" },
        headers: { "X-Tenant": "tenant-key-value" },
      }),
    );
    // Saving again without the secret keeps it (a write-only field the page leaves empty).
    expect(
      MetricsExportSinkView.parse(
        await browser.request("PUT", "/api/metrics-export/otlp", {
          url: otlp.url,
          auth: { kind: "basic", username: "throng" },
        }),
      ).secret,
    ).toBe("set");
    const db = createDb(databaseUrl, { max: 1 });
    try {
      const rows = await db
        .selectFrom("metrics_export_sinks")
        .select(["sink", "secret_sealed", "headers_sealed"])
        .execute();
      expect(rows).toHaveLength(2);
      for (const row of rows) {
        expect(row.secret_sealed).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
        for (const plain of [token, "otlp-password", "team-a", "tenant-key-value"])
          expect(`${row.secret_sealed}${row.headers_sealed}`).not.toContain(plain);
      }
    } finally {
      await db.destroy();
    }
    await expect(
      browser.request("PUT", "/api/metrics-export/otlp", { url: "ftp://x", auth: { kind: "none" } }),
    ).rejects.toThrow(/400.*url/);
    await expect(
      browser.request("PUT", "/api/metrics-export/otlp", { url: otlp.url, headers: { Authorization: "x" } }),
    ).rejects.toThrow(/400.*headers/);
  });

  it("Send test pushes one sample to the real Prometheus and the sink's status says when it succeeded", async () => {
    const before = Date.now() / 1000;
    await browser.request("POST", "/api/metrics-export/prometheus/test");
    await waitUntil(async () => (await settings()).prometheus?.lastSuccessAt != null, {
      what: "the test push to succeed",
      timeoutMs: 30_000,
    }).catch(async (error: Error) => {
      throw new Error(`${error.message} (status: ${JSON.stringify(await settings())})\n${failure()}`);
    });
    const samples = await prometheus.samples("throng_export_test", before - 5, Date.now() / 1000 + 1);
    expect(samples).toHaveLength(1);
    expect(samples[0]!.values.map(([, v]) => v)).toEqual([1]);
  }, 60_000);

  it("a run's seconds arrive while it runs, and once it ends every second and the summary equal the run's own series", async () => {
    const plan: PlanSpecInput = {
      name: "exported plan",
      target: { protocol: "websocket", url: targetUrl },
      scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 },
      load: { clients: 4, durationSec: 12, rampUpSec: 0 },
      export: { prometheus: true, otlp: true },
    };
    const planId = (await browser.request<{ id: string }>("POST", "/api/plans", plan)).id;
    const runId = RunView.parse(await browser.request("POST", `/api/plans/${planId}/runs`)).id;
    const connectionsOf = async () =>
      prometheus.samples(`throng_connections{run_id="${runId}"}`, Date.now() / 1000 - 120, Date.now() / 1000 + 1);
    // Streamed, not sent at the end: some seconds are in Prometheus while the run is still running.
    await waitUntil(async () => (await connectionsOf()).length > 0, {
      what: "the first seconds to reach Prometheus",
      timeoutMs: 60_000,
      intervalMs: 250,
    }).catch((error: Error) => {
      throw new Error(`${error.message}\n${failure()}`);
    });
    expect(RunView.parse(await browser.request("GET", `/api/runs/${runId}`)).status).toBe("running");

    const { run } = await waitForStatus(browser, runId, ["finished", "failed", "aborted"], 90_000);
    expect(run.status, run.error ?? "").toBe("finished");
    const points = await getSeries(browser, runId);
    const last = points.at(-1)!.t;
    // The summary goes out last, after every second.
    await waitUntil(
      async () =>
        (await prometheus.samples(`throng_run_duration_seconds{run_id="${runId}"}`, last - 120, last + 120)).length >
          0 && otlpValues(runId).has("throng_run_duration_seconds"),
      { what: "the run's summary to arrive", timeoutMs: 60_000, intervalMs: 250 },
    ).catch(async (error: Error) => {
      throw new Error(`${error.message}\n${JSON.stringify(await settings())}\n${failure()}`);
    });

    const from = points[0]!.t - 1;
    const expected: Record<string, (p: SeriesPoint) => number | null> = {
      throng_connections: (p) => p.connections,
      throng_clients: (p) => p.clients,
      throng_messages_sent_per_second: (p) => p.messagesSentPerSec,
      throng_messages_received_per_second: (p) => p.messagesReceivedPerSec,
      throng_errors_per_second: (p) => p.errors,
      'throng_rtt_seconds{quantile="0.5"}': (p) => (p.rttP50Ms === null ? null : p.rttP50Ms / 1000),
      'throng_rtt_seconds{quantile="0.99"}': (p) => (p.rttP99Ms === null ? null : p.rttP99Ms / 1000),
      'throng_rtt_seconds{quantile="1"}': (p) => (p.rttMaxMs === null ? null : p.rttMaxMs / 1000),
    };
    let sent = 0;
    const cumulative = new Map<number, number>();
    for (const p of points) {
      sent += p.messagesSentPerSec;
      cumulative.set(p.t, sent);
    }
    const otlpSeries = otlpValues(runId);
    for (const [name, value] of Object.entries(expected)) {
      const want = points.flatMap((p) => (value(p) === null ? [] : [[p.t, value(p)!] as [number, number]]));
      expect(want.length, name).toBeGreaterThan(0);
      const selector = name.includes("{") ? name.replace("{", `{run_id="${runId}",`) : `${name}{run_id="${runId}"}`;
      const got = await prometheus.samples(selector, from, last + 1);
      expect(got, name).toHaveLength(1);
      expect(got[0]!.metric).toMatchObject({ run_id: runId, plan: "exported plan", scenario: "ping-pong" });
      expect({ name, values: got[0]!.values }).toEqual({ name, values: want });
      expect({ name, values: [...(otlpSeries.get(name) ?? [])].sort(([a], [b]) => a - b) }).toEqual({
        name,
        values: want,
      });
    }
    const total = await prometheus.samples(`throng_messages_sent_total{run_id="${runId}"}`, from, last + 1);
    expect(total[0]!.values).toEqual(points.map((p) => [p.t, cumulative.get(p.t)]));
    const summary = await prometheus.samples(`throng_run_messages_sent{run_id="${runId}"}`, last - 120, last + 120);
    expect(summary[0]!.values.map(([, v]) => v)).toEqual([run.summary!.messagesSent]);
    exported = { runId, points, summary: run.summary! };

    const basic = `Basic ${Buffer.from("throng:otlp-password").toString("base64")}`;
    expect(otlp.requests.length).toBeGreaterThan(0);
    for (const request of otlp.requests)
      expect(request).toMatchObject({
        path: "/v1/metrics",
        headers: { authorization: basic, "x-tenant": "tenant-key-value", "content-type": "application/json" },
      });
    expect((await settings()).otlp).toMatchObject({ lastError: null });
  }, 180_000);

  it("the RTT histogram counts every round trip of the run, its buckets add up in PromQL, and histogram_quantile finds the report's p99 bucket", async () => {
    if (!exported) throw new Error("needs the exported run of the test before");
    const { runId, points, summary } = exported;
    const [first, last] = [points[0]!.t, points.at(-1)!.t];
    // What the histogram counts: every RTT the agents recorded, i.e. the stored snapshots' histograms.
    const db = createDb(databaseUrl, { max: 1 });
    const recorded = emptyHistogram();
    try {
      for (const row of await db.selectFrom("snapshots").select("rtt_hist").where("run_id", "=", runId).execute())
        addEncoded(recorded, row.rtt_hist);
    } finally {
      await db.destroy();
    }
    console.log(
      `RTT samples recorded: ${recorded.totalCount}; run summary messagesReceived: ${summary.messagesReceived}`,
    );
    expect(recorded.totalCount).toBeGreaterThan(0);
    const run = `run_id="${runId}"`;
    const count = await prometheus.samples(`throng_rtt_histogram_seconds_count{${run}}`, first - 1, last + 1);
    expect(count).toHaveLength(1);
    expect(count[0]!.values.map(([t]) => t)).toEqual(points.map((p) => p.t));
    expect(count[0]!.values.at(-1)).toEqual([last, recorded.totalCount]);
    expect(count[0]!.values.at(-1)![1]).toBe(summary.messagesReceived);

    // Cumulative in le at every second, +Inf equal to _count, and never decreasing in time (a counter).
    const buckets = await prometheus.samples(`throng_rtt_histogram_seconds_bucket{${run}}`, first - 1, last + 1);
    const le = (s: { metric: Record<string, string> }) => (s.metric.le === "+Inf" ? Infinity : Number(s.metric.le));
    expect(buckets.map(le).sort((a, b) => a - b)).toEqual([...RTT_BUCKET_BOUNDS_SEC, Infinity]);
    const byLe = buckets.sort((a, b) => le(a) - le(b)).map((s) => s.values.map(([, v]) => v));
    for (const [i, [t, total]] of count[0]!.values.entries()) {
      const column = byLe.map((values) => values[i]!);
      expect({ t, column }).toEqual({ t, column: [...column].sort((a, b) => a - b) });
      expect(column.at(-1), `+Inf at ${t}`).toBe(total);
      if (i > 0)
        for (const [b, values] of byLe.entries())
          expect(values[i]!, `bucket ${b} at ${t}`).toBeGreaterThanOrEqual(values[i - 1]!);
    }

    // Over the whole run (the counters at its last second), the interpolated p99 lies in the bucket of the report's.
    const p99 = await prometheus.query(
      `histogram_quantile(0.99, sum by (le) (throng_rtt_histogram_seconds_bucket{${run}}))`,
      last,
    );
    const reportP99 = summary.rttP99Ms! / 1000;
    // HDR reads a percentile at its bucket's highest equivalent value (within 0.1% at 3 significant digits) and
    // rounds the 99% rank; Prometheus does neither. A p99 within that of a bound may fall either side of it.
    const upper = RTT_BUCKET_BOUNDS_SEC.find((bound) => reportP99 * 1.001 <= bound)!;
    const lower = RTT_BUCKET_BOUNDS_SEC.filter((bound) => bound < reportP99 * 0.999).at(-1) ?? 0;
    console.log(`report p99 ${reportP99} s; histogram_quantile ${p99[0]?.value} s; bucket (${lower}, ${upper}]`);
    expect(p99).toHaveLength(1);
    expect(p99[0]!.value).toBeGreaterThan(lower);
    expect(p99[0]!.value).toBeLessThanOrEqual(upper);
    // The dashboard's form, over a window: a number within the buckets, not NaN.
    const windowed = await prometheus.query(
      `histogram_quantile(0.99, sum by (le) (rate(throng_rtt_histogram_seconds_bucket{${run}}[30s])))`,
      last,
    );
    expect(windowed[0]!.value).toBeGreaterThan(0);
    expect(windowed[0]!.value).toBeLessThanOrEqual(RTT_BUCKET_BOUNDS_SEC.at(-1)!);

    // OTLP got the same counts as explicit-bucket points, per-bucket (not cumulative) counts adding up to each count.
    const histogramPoints = otlpMetrics()
      .filter((m) => m.name === "throng_rtt_histogram_seconds")
      .flatMap((m) => m.histogram?.dataPoints ?? [])
      .filter((p) => p.attributes.some((a) => a.key === "run_id" && a.value.stringValue === runId));
    const otlpCounts = new Map(histogramPoints.map((p) => [secondOf(p.timeUnixNano), p.count]));
    expect([...otlpCounts].sort(([a], [b]) => a - b)).toEqual(count[0]!.values);
    for (const point of histogramPoints) {
      expect(point.explicitBounds).toEqual([...RTT_BUCKET_BOUNDS_SEC]);
      expect(point.bucketCounts.reduce((a, b) => a + b, 0)).toBe(point.count);
      const second = count[0]!.values.findIndex(([t]) => t === secondOf(point.timeUnixNano));
      let cumulative = 0;
      expect(point.bucketCounts.map((c) => (cumulative += c))).toEqual(byLe.map((values) => values[second]));
    }
  }, 60_000);
});
