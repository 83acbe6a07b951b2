import { createHash } from "node:crypto";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureChromium } from "../../../infra/local/chromium";
import { PlanView } from "@throng/protocol/api";
import type { ErrorBody } from "@throng/protocol/errors";
import { RunReport, RunView } from "@throng/protocol/run";
import { RunPage } from "@throng/protocol/run-list";
import { EstimateView, RunComparison, ShareLinkCreated, TargetView } from "@throng/protocol/report";
import { encodeValues } from "@throng/core/metrics/histogram";
import { parseApiEnv } from "./env";
import { createPdfRenderer } from "./pdf/pdf-renderer";
import { reportHeadline, WHOLE_RUN } from "./pdf/report-html";
import type { TestAgent } from "./testing/test-agent";
import { startApiWithAgent } from "./testing/api-with-agent";
import { ensurePdfText, pdfText } from "./testing/pdf-text";
import type { TestApi, TestUser } from "./testing/test-api";
import { heldSnapshot } from "./testing/snapshots";
import { playShardToTheEnd } from "./testing/played-shard";

let api: TestApi;
let user: TestUser;
let agent: TestAgent;
let orgId: string;
beforeAll(async () => {
  // The PDF tests print in real Chromium and read the PDF back with poppler's pdftotext (installed when missing, as npm test does).
  await ensurePdfText();
  ({ api, user, agent, orgId } = await startApiWithAgent("Rep", { pdf: { chromiumPath: await ensureChromium() } }));
});
afterAll(async () => {
  await agent?.close();
  await api?.close();
});

/** 90 samples at 1 ms and 10 at `p99Us`: a histogram whose p99 is `p99Us`. */
const slowTail = (p99Us: number) => encodeValues([...Array(90).fill(1_000), ...Array(10).fill(p99Us)]);
/** The script a script run's plan names; the test agent reports what it would measure (replies timed at `p99Us`, 40 counted a second). */
const SCRIPT_SOURCE =
  "export default async function client(ctx) { await ctx.measure('reply-ms', Promise.resolve()); ctx.count('replies', 1); }\n";

/** What a ping-pong agent sends each second (round trips at `p99Us`), a movement-sync one (broadcasts at `p99Us`, 9 in 10 delivered), a script's. */
const MEASURES = {
  "ping-pong": {
    scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 },
    slo: "rtt-p99-ms",
    measured: (p99Us: number) => ({ counters: {}, histograms: { rttUs: slowTail(p99Us) } }),
  },
  "movement-sync": {
    scenario: { kind: "movement-sync", roomSize: 5, updateHz: 10, messageBytes: 64 },
    slo: "broadcast-p99-ms",
    measured: (p99Us: number) => ({
      counters: { broadcastsExpected: 200, broadcastsReceived: 180 },
      histograms: { rttUs: encodeValues([]), broadcastUs: slowTail(p99Us) },
    }),
  },
  session: {
    scenario: {
      kind: "ping-pong",
      intervalMs: 100,
      messageBytes: 64,
      session: [
        { kind: "send", message: { body: "PING" } },
        { kind: "expect", reply: { prefixHex: "2b504f4e47" } },
      ],
    },
    slo: "rtt-p99-ms",
    // Each second: 5 sends timed at 50 µs, 100 replies (the slow tail at `p99Us`), 2 replies that never came.
    measured: (p99Us: number) => ({
      counters: {
        errors: 2,
        errorsByKind: { "session-timeout": 2 },
        sessionStepFailures: { "1": { "session-timeout": 2 } },
      },
      histograms: {
        rttUs: slowTail(p99Us),
        sessionSteps: { "0": encodeValues(Array(5).fill(50)), "1": slowTail(p99Us) },
      },
    }),
  },
  script: {
    scenario: {
      kind: "script",
      script: { sha256: createHash("sha256").update(SCRIPT_SOURCE, "utf8").digest("hex") },
      metrics: [
        { name: "reply-ms", kind: "histogram" },
        { name: "replies", kind: "counter" },
      ],
    },
    slo: "script:reply-ms-p99",
    measured: (p99Us: number) => ({
      counters: { scriptCounts: { replies: 40 } },
      histograms: { rttUs: encodeValues([]), script: { "reply-ms": slowTail(p99Us) } },
    }),
  },
} as const;

/** A finished run whose agent measured `seconds` seconds at `p99Us` (and `received(seq)` messages in each), of a new plan or of `planId`. */
async function finishedRun(
  seconds: number,
  p99Us: number,
  clients = 5,
  planId?: string,
  kind: keyof typeof MEASURES = "ping-pong",
  received: (seq: number) => number = () => 50,
) {
  const measures = MEASURES[kind];
  const created = planId
    ? null
    : await user.request("POST", "/api/plans", {
        name: `run at ${p99Us} µs`,
        target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
        scenario: measures.scenario,
        load: { clients, durationSec: seconds },
        slos: [{ metric: measures.slo, below: 10 }],
      });
  if (created && created.status !== 201) throw new Error(`plan not saved: ${JSON.stringify(created.json)}`);
  const plan = created ? PlanView.parse(created.json) : { id: planId! };
  const started = await user.request("POST", `/api/plans/${plan.id}/runs`);
  if (started.status !== 201) throw new Error(`run not started: ${JSON.stringify(started.json)}`);
  const run = RunView.parse(started.json);
  await api.deps.orchestrator.start(orgId, run.id);
  const assignment = await agent.next("run-assignment");
  await playShardToTheEnd({ api, user, agent, orgId }, run.id, seconds, (seq) => {
    const { counters, histograms } = measures.measured(p99Us);
    return heldSnapshot(assignment, seq, clients, {
      counters: {
        messagesSent: 50,
        messagesReceived: received(seq),
        bytesSent: 3200,
        bytesReceived: 1000,
        ...counters,
      },
      histograms,
    });
  });
  return run.id;
}

describe("reports, exports and sharing", () => {
  it("a report carries the run, its SLO verdict and its series; the CSV has one row per second", async () => {
    const runId = await finishedRun(3, 20_000);
    const report = RunReport.parse((await user.request("GET", `/api/runs/${runId}/report`)).json);
    expect(report.series).toHaveLength(3);
    expect(report.run.verdict).toMatchObject({
      passed: false,
      slos: [{ metric: "rtt-p99-ms", passed: false, breachedSeconds: 3 }],
    });
    const csv = await (await user.open(`/api/runs/${runId}/series.csv`, new AbortController().signal)).text();
    const lines = csv.trim().split("\n");
    expect(lines[0]).toMatch(/^time,agents,clients,connections,messages_sent_per_sec/);
    expect(lines).toHaveLength(4);
    expect(lines[1]!.split(",")[3]).toBe("5");
  });

  it("compares runs with deltas against the first", async () => {
    const slow = await finishedRun(2, 20_000);
    const fast = await finishedRun(2, 2_000);
    const comparison = RunComparison.parse((await user.request("GET", `/api/runs/compare?ids=${slow},${fast}`)).json);
    expect(comparison.runs[1]?.deltaPercent.rttP99Ms).toBeLessThan(-80);
    // Each run's verdict and SLOs, for the compare table's SLO rows.
    expect(comparison.runs[0]).toMatchObject({
      outcome: "breached",
      slos: [{ metric: "rtt-p99-ms", below: 10, status: "breached" }],
    });
    expect(comparison.runs[1]?.slos.map((slo) => slo.metric)).toEqual(["rtt-p99-ms"]);
    expect((await user.request("GET", `/api/runs/compare?ids=${slow}`)).status).toBe(400);
  });

  it("calls a change inside the runs' own second-to-second spread within noise, and a larger one a change", async () => {
    const wobble = [46, 54, 48, 52, 50]; // 50 messages/s, moving by ±3.2 from second to second
    const base = await finishedRun(5, 2_000, 5, undefined, "ping-pong", (seq) => wobble[seq]!);
    const same = await finishedRun(
      5,
      2_000,
      5,
      undefined,
      "ping-pong",
      (seq) => wobble[(seq + 1) % 5]! - (seq === 0 ? 1 : 0),
    ); // 49.8/s: −0.4 %
    const double = await finishedRun(5, 2_000, 5, undefined, "ping-pong", (seq) => wobble[seq]! * 2);
    const noise = RunComparison.parse(
      (await user.request("GET", `/api/runs/compare?ids=${base},${same},${double}`)).json,
    );
    expect(noise.runs[1]).toMatchObject({
      deltaPercent: { messagesPerSec: -0.4 },
      withinNoise: { messagesPerSec: true },
    });
    expect(noise.runs[0]!.spread.messagesPerSec).toBeCloseTo(3.16, 1);
    expect(noise.runs[2]).toMatchObject({
      deltaPercent: { messagesPerSec: 100 },
      withinNoise: { messagesPerSec: false },
    });
    expect(noise.runs[0]!.withinNoise.messagesPerSec).toBeNull(); // the baseline is not compared with itself
  });

  it("a plan's runs, newest first, carry what its trend charts: each run's summary figures and verdict", async () => {
    const first = await finishedRun(2, 20_000);
    const { planId } = RunView.parse((await user.request("GET", `/api/runs/${first}`)).json);
    const second = await finishedRun(2, 2_000, 5, planId);
    await finishedRun(2, 2_000);
    const page = RunPage.parse((await user.request("GET", `/api/runs?plan=${planId}&limit=100`)).json);
    expect(page.runs.map((run) => run.id)).toEqual([second, first]);
    expect(page.runs[1]).toMatchObject({
      verdict: { outcome: "breached" },
      summary: { rttP99Ms: expect.any(Number), messagesPerSec: expect.any(Number), errors: 0 },
    });
    expect(page.runs[1]!.summary!.rttP99Ms!).toBeGreaterThan(page.runs[0]!.summary!.rttP99Ms!);
    expect((await user.request<RunPage>("GET", "/api/runs?plan=not-a-plan")).json).toMatchObject({
      error: { code: "validation_failed", fields: [{ path: "plan" }] },
    });
  });

  it("a share link shows the report without signing in, until it is revoked or expires", async () => {
    const runId = await finishedRun(2, 1_000);
    const link = ShareLinkCreated.parse((await user.request("POST", `/api/runs/${runId}/share-links`, {})).json);
    expect(link.url).toContain(`/share/${link.token}`);
    const open = () => fetch(`${api.url}/api/public/reports/${link.token}`);
    const shared = RunReport.parse(await (await open()).json());
    expect(shared.run.id).toBe(runId);
    // Who started the run is a member's email: the signed-in report names them, the shared one does not.
    expect(RunReport.parse((await user.request("GET", `/api/runs/${runId}/report`)).json).run.startedBy).toBeTruthy();
    expect(shared.run.startedBy).toBeNull();
    expect(JSON.stringify((await user.request("GET", `/api/runs/${runId}/share-links`)).json)).not.toContain(
      link.token,
    );
    expect((await user.request("DELETE", `/api/share-links/${link.id}`)).status).toBe(204);
    expect((await open()).status).toBe(404);
    const expiring = ShareLinkCreated.parse(
      (await user.request("POST", `/api/runs/${runId}/share-links`, { expiresInDays: 1 })).json,
    );
    await api.db
      .updateTable("share_links")
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where("id", "=", expiring.id)
      .execute();
    expect((await fetch(`${api.url}/api/public/reports/${expiring.token}`)).status).toBe(404);
    expect((await fetch(`${api.url}/api/public/reports/thr_shr_forged_abcdef`)).status).toBe(404);
  });

  it("keeps capacity estimates per target and says how each build changed", async () => {
    const first = await finishedRun(2, 1_000);
    const second = await finishedRun(2, 1_000);
    expect(
      (await user.request("POST", `/api/runs/${first}/estimates`, { targetName: "lobby", build: "1.3" })).status,
    ).toBe(409);
    const capacity = (clients: number) =>
      JSON.stringify({
        clients,
        valid: true,
        problems: [],
        breakingStep: 1,
        breakingSlos: ["rtt-p99-ms"],
        kneeClients: null,
        usl: null,
        steps: [],
        sentence: `Holds ${clients} clients.`,
      });
    await api.db
      .updateTable("runs")
      .set({ capacity: capacity(13_200) })
      .where("id", "=", first)
      .execute();
    await api.db
      .updateTable("runs")
      .set({ capacity: capacity(11_616) })
      .where("id", "=", second)
      .execute();
    await user.request("POST", `/api/runs/${first}/estimates`, { targetName: "lobby", build: "1.3" });
    const saved = EstimateView.parse(
      (await user.request("POST", `/api/runs/${second}/estimates`, { targetName: "lobby", build: "1.4" })).json,
    );
    expect(saved.change).toBe("−12% since build 1.3");
    const targets = (await user.request<{ targets: TargetView[] }>("GET", "/api/targets")).json.targets.map(
      (t: unknown) => TargetView.parse(t),
    );
    expect(targets).toMatchObject([{ name: "lobby", estimates: 2, latest: { build: "1.4", clients: 11_616 } }]);
    expect(
      (await user.request<{ estimates: EstimateView[] }>("GET", "/api/targets/lobby/estimates")).json.estimates,
    ).toHaveLength(2);
    const bad = await user.request<ErrorBody>("POST", `/api/runs/${second}/estimates`, {
      targetName: "",
      build: "1.5",
    });
    expect(bad.json.error.fields?.[0]?.path).toBe("targetName");
  });

  it("prints a finished run's report to PDF in Chromium: a PDF file named after the plan and day, holding the report's headline", async () => {
    const runId = await finishedRun(3, 20_000);
    expect(
      (
        await user.request("PATCH", `/api/runs/${runId}`, {
          note: "build 1.4.2 <canary>\nsecond line",
          tags: ["release-1.4", "nightly"],
        })
      ).status,
    ).toBe(200);
    const answer = await user.open(`/api/runs/${runId}/report.pdf`, new AbortController().signal);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/pdf");
    const run = RunView.parse((await user.request("GET", `/api/runs/${runId}`)).json);
    expect(answer.headers.get("content-disposition")).toBe(
      `attachment; filename="run-at-20000-s-${run.startedAt!.slice(0, 10)}.pdf"`,
    );
    const bytes = new Uint8Array(await answer.arrayBuffer());
    expect(Buffer.from(bytes.subarray(0, 5)).toString("latin1")).toBe("%PDF-");
    // pdftotext breaks lines where the page does: compare the words, not the line breaks.
    const words = (text: string) => text.replace(/\s+/g, " ").trim();
    const text = words(await pdfText(bytes));
    expect(text).toContain(`Report: ${run.planName}`);
    expect(text).toContain(words(reportHeadline(run)));
    expect(text).toContain("Tags: release-1.4, nightly");
    expect(text).toContain("build 1.4.2 <canary> second line");
    // The dashboard's sentence: the broken SLO by name, at the load it ran, with ping-pong's round trips.
    expect(reportHeadline(run)).toMatch(
      /^Failed Round trip p99 at 5 clients, [\d.]+ messages\/s, round trip p99 20(\.\d+)? ms\.$/,
    ); // HDR buckets: 20 ms reads back as 20.02
    expect(text).toContain("Round trip p99 (ms)"); // its chart
    // SLOs by name, not by metric id.
    expect(text).toMatch(/Round trip p99 below 10 ms 20(\.\d+)? ms/);
    expect(text).not.toContain("rtt-p99-ms");
    // The PDF is the whole run's document, and says so on its first page (a zoom on the page does not narrow it).
    expect(text).toContain(words(WHOLE_RUN));
    // The round trips' distribution, merged from the stored seconds: 3 s × 100 samples, and its heatmap.
    expect(text).toContain("Latency distribution (whole run)");
    expect(text).toMatch(/Round trips: 300 samples · p50 1(\.\d+)? ms · p90 1(\.\d+)? ms · p99 20(\.\d+)? ms/);
    expect(text).toContain("Round trips over time");
  }, 60_000);

  it("prints a movement-sync run scenario-first: broadcast p99 and reach in its sentence, figures and charts, no round trips", async () => {
    const runId = await finishedRun(3, 20_000, 5, undefined, "movement-sync");
    const run = RunView.parse((await user.request("GET", `/api/runs/${runId}`)).json);
    expect(run.summary).toMatchObject({ rttP99Ms: null, broadcastReach: 0.9 });
    const answer = await user.open(`/api/runs/${runId}/report.pdf`, new AbortController().signal);
    expect(answer.status).toBe(200);
    const words = (text: string) => text.replace(/\s+/g, " ").trim();
    const text = words(await pdfText(new Uint8Array(await answer.arrayBuffer())));
    expect(reportHeadline(run)).toMatch(
      /^Failed Broadcast p99 at 5 clients, [\d.]+ messages\/s, broadcast p99 20(\.\d+)? ms, broadcast reach 90 %\.$/,
    );
    expect(text).toContain(words(reportHeadline(run)));
    expect(text).toContain("Broadcast p99 (ms)");
    expect(text).toContain("Broadcast reach (%)");
    expect(text).toMatch(/Broadcast reach 90 %/);
    expect(text).not.toContain("Round trip");
  }, 60_000);

  it("prints a script run by its own metrics: its SLO'd timing in the sentence, its timings and counter total in the figures, each charted", async () => {
    expect(
      (await user.request("POST", "/api/scripts", { name: "bots.mjs", source: SCRIPT_SOURCE })).status,
    ).toBeLessThan(300);
    const runId = await finishedRun(3, 20_000, 5, undefined, "script");
    const run = RunView.parse((await user.request("GET", `/api/runs/${runId}`)).json);
    expect(run.summary?.scriptCounts).toEqual({ replies: 120 });
    const answer = await user.open(`/api/runs/${runId}/report.pdf`, new AbortController().signal);
    expect(answer.status).toBe(200);
    const words = (text: string) => text.replace(/\s+/g, " ").trim();
    const text = words(await pdfText(new Uint8Array(await answer.arrayBuffer())));
    expect(reportHeadline(run)).toMatch(/^Failed reply-ms p99 \(script\) at 5 clients, reply-ms p99 20(\.\d+)? ms\.$/);
    expect(text).toContain(words(reportHeadline(run)));
    // The figures are two tables side by side: each figure is read on its own.
    for (const figure of [/reply-ms p50 1(\.\d+)? ms/, /reply-ms p99 20(\.\d+)? ms/, /replies total 120/])
      expect(text).toMatch(figure);
    expect(text).toContain("reply-ms p99 (ms)");
    expect(text).toContain("replies per second (count/s)");
    expect(text).not.toMatch(/Messages|Round trip/);
  }, 60_000);

  it("prints the session's table as the run page has it: each step's time and failures by cause, then the whole session", async () => {
    const runId = await finishedRun(3, 20_000, 5, undefined, "session");
    const run = RunView.parse((await user.request("GET", `/api/runs/${runId}`)).json);
    expect(run.summary?.sessionSteps?.["1"]).toMatchObject({ count: 300, failures: { "session-timeout": 6 } });
    const answer = await user.open(`/api/runs/${runId}/report.pdf`, new AbortController().signal);
    expect(answer.status).toBe(200);
    const words = (text: string) => text.replace(/\s+/g, " ").trim();
    const text = words(await pdfText(new Uint8Array(await answer.arrayBuffer())));
    expect(text).toContain("Session (2 steps)");
    expect(text).toContain("Step Completed p50 p90 p99 Max Failures by cause");
    // The API shows a session message's body masked (it may hold a secret), as the run page does.
    expect(text).toMatch(/0 sends \S+ 15 0\.05 ms 0\.05 ms 0\.05 ms 0\.05 ms none/);
    expect(text).toMatch(
      /1 awaits a reply starting "\+PONG" 300 1(\.\d+)? ms 1(\.\d+)? ms 20(\.\d+)? ms 20(\.\d+)? ms 6 × no expected reply in time/,
    );
    expect(text).toMatch(/Whole session not timed (not measured ){4}6 × no expected reply in time/);
  }, 60_000);

  it("prints a shared report to PDF without signing in, and another organisation's run is not found", async () => {
    const runId = await finishedRun(2, 1_000);
    const link = ShareLinkCreated.parse((await user.request("POST", `/api/runs/${runId}/share-links`, {})).json);
    const shared = await fetch(`${api.url}/api/public/reports/${link.token}/report.pdf`);
    expect(shared.status).toBe(200);
    const bytes = new Uint8Array(await shared.arrayBuffer());
    expect(Buffer.from(bytes.subarray(0, 5)).toString("latin1")).toBe("%PDF-");
    // The shared PDF draws the run's distributions as the signed-in one does: 2 s × 100 round trips.
    const text = (await pdfText(bytes)).replace(/\s+/g, " ");
    expect(text).toContain("Latency distribution (whole run)");
    expect(text).toMatch(/Round trips: 200 samples/);
    expect((await fetch(`${api.url}/api/public/reports/thr_shr_forged_abcdef/report.pdf`)).status).toBe(404);
    const stranger = await api.signUp("Stranger");
    const refused = await stranger.open(`/api/runs/${runId}/report.pdf`, new AbortController().signal);
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ error: { code: "not_found" } });
  }, 60_000);

  it("without Chromium the PDF is a 503 that says what to install, not a 500", async () => {
    expect(
      parseApiEnv({ DATABASE_URL: "postgres://x", REDIS_URL: "redis://x", AUTH_SECRET: "x".repeat(32) }).CHROMIUM_PATH,
    ).toBe("chromium");
    const runId = await finishedRun(2, 1_000);
    const working = api.deps.pdf;
    // What main.ts builds from CHROMIUM_PATH=/nonexistent/chromium.
    api.deps.pdf = createPdfRenderer(
      { chromiumPath: "/nonexistent/chromium", concurrency: 1, timeoutMs: 10_000 },
      pino({ level: "silent" }),
    );
    try {
      const answer = await user.request<ErrorBody>("GET", `/api/runs/${runId}/report.pdf`);
      expect(answer.status).toBe(503);
      expect(answer.json.error.code).toBe("unavailable");
      expect(answer.json.error.message).toMatch(
        /"\/nonexistent\/chromium" was not found: install it \(apt-get install chromium.*\) or set CHROMIUM_PATH/,
      );
      // A binary that is there but is no Chromium (here /bin/true, which exits at once) is as unavailable.
      await api.deps.pdf.close();
      api.deps.pdf = createPdfRenderer(
        { chromiumPath: "/bin/true", concurrency: 1, timeoutMs: 10_000 },
        pino({ level: "silent" }),
      );
      const broken = await user.request<ErrorBody>("GET", `/api/runs/${runId}/report.pdf`);
      expect(broken.status).toBe(503);
      expect(broken.json.error.message).toMatch(
        /^PDF export needs Chromium and \/bin\/true did not start \(.+\): install Debian's chromium package or set CHROMIUM_PATH/,
      );
    } finally {
      await api.deps.pdf.close();
      api.deps.pdf = working;
    }
  }, 60_000);

  it("a PDF that takes longer than its time-out is a 504 saying to try again", async () => {
    const runId = await finishedRun(2, 1_000);
    const working = api.deps.pdf;
    // 1 ms: over before Chromium has even started.
    api.deps.pdf = createPdfRenderer(
      { chromiumPath: await ensureChromium(), concurrency: 1, timeoutMs: 1 },
      pino({ level: "silent" }),
    );
    try {
      const answer = await user.request<ErrorBody>("GET", `/api/runs/${runId}/report.pdf`);
      expect(answer.status).toBe(504);
      expect(answer.json.error).toMatchObject({
        code: "timeout",
        message: "The PDF took longer than 1 ms to render; try again",
      });
    } finally {
      await api.deps.pdf.close();
      api.deps.pdf = working;
    }
  }, 60_000);
});
