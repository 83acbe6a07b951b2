import { describe, expect, it } from "vitest";
import { capacityEstimate } from "@throng/protocol/capacity-estimate.test-support";
import { PlanSpec, type PlanSpecInput } from "@throng/protocol/plan";
import type { RunReport, RunSummary, RunView } from "@throng/protocol/run";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { reportHeadline, reportHtml } from "./report-html";

const T0 = 1_800_000_000;
const stats = (p99Ms: number) => ({ count: 10, p50Ms: 1, p90Ms: p99Ms, p99Ms, maxMs: p99Ms });
const SCENARIOS = {
  "ping-pong": { kind: "ping-pong", intervalMs: 100, messageBytes: 64 },
  "movement-sync": { kind: "movement-sync", roomSize: 4, updateHz: 10, messageBytes: 64 },
  "login-storm": { kind: "login-storm" },
  // Its SLOs name only the metrics it declares (slo-metrics.ts).
  script: {
    kind: "script",
    script: { sha256: "a".repeat(64) },
    metrics: [
      { name: "reply-ms", kind: "histogram" },
      { name: "connect-ms", kind: "histogram" },
      { name: "replies", kind: "counter" },
    ],
  },
} as const;

/** A finished run's report as the API hands it to Chromium: its summary and seconds carry every scenario's figures. */
function report(kind: keyof typeof SCENARIOS, slos: PlanSpecInput["slos"] = []): RunReport {
  const spec = PlanSpec.parse({
    name: "p",
    target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
    scenario: SCENARIOS[kind],
    load: { clients: 8, durationSec: 3 },
    slos,
  });
  const figures = { latency: { broadcast: stats(12.5), connect: stats(3), login: stats(40) }, broadcastReach: 0.987 };
  // A script's own: "reply-ms" timed every second, "connect-ms" in the first only, "replies" counted 400 a second.
  const script = (i: number) =>
    kind === "script"
      ? {
          script: { "reply-ms": stats(7.5), ...(i === 0 ? { "connect-ms": stats(2) } : {}) },
          scriptCounts: { replies: 400 },
        }
      : {};
  const summary: RunSummary = {
    agents: 1,
    peakClients: 8,
    peakConnections: 8,
    durationSec: 3,
    messagesSent: 960,
    messagesReceived: 960,
    messagesPerSec: 320,
    connectionsFailed: 0,
    errors: 0,
    rttP50Ms: kind === "ping-pong" ? 1 : null,
    rttP99Ms: kind === "ping-pong" ? 4.5 : null,
    rttMaxMs: null,
    ...figures,
    ...(kind === "script"
      ? { script: { "reply-ms": stats(7.5), "connect-ms": stats(2) }, scriptCounts: { replies: 1200 } }
      : {}),
  };
  const series = [0, 1, 2].map(
    (i): SeriesPoint => ({
      t: T0 + i,
      agents: 1,
      clients: 8,
      connections: 8,
      messagesSentPerSec: 320,
      messagesReceivedPerSec: 320,
      bytesSentPerSec: 1,
      bytesReceivedPerSec: 1,
      errors: 0,
      rttP50Ms: summary.rttP50Ms,
      rttP99Ms: summary.rttP99Ms,
      rttMaxMs: null,
      ...figures,
      ...script(i),
    }),
  );
  const run = {
    id: "5f0c1c6e-0000-4000-8000-000000000000",
    planName: `${kind} run`,
    status: "finished",
    spec,
    summary,
    verdict: null,
    capacity: null,
    error: null,
    createdAt: new Date(T0 * 1000).toISOString(),
    startedAt: null,
    endedAt: null,
    startedBy: null,
    tags: [],
    note: null,
    events: [],
  } as unknown as RunView;
  return { run, series } as unknown as RunReport;
}

/** The chart captions, in order. */
const charts = (html: string) => [...html.matchAll(/<figcaption>([^<]*)<\/figcaption>/g)].map((match) => match[1]);
/** The Figures table's row names. */
const figures = (html: string) =>
  [
    ...html
      .split("<h2>Figures</h2>")[1]!
      .split("<h2>")[0]!
      .matchAll(/<tr><td>([^<]*)<\/td>/g),
  ].map((match) => match[1]);
/** The chart captions of a scenario that counts messages: its own charts, then messages received and clients, as every such run has. */
const countedCharts = (...scenarioCharts: string[]) => [
  ...scenarioCharts,
  "Messages received per second (msg/s)",
  "Clients (clients)",
];
/** A Figures table's rows: the scenario's own between the rows every run has (peak clients and duration lead, errors, failed connections and agents close). */
const figureRows = (...scenarioRows: string[]) => [
  "Peak clients",
  "Duration",
  ...scenarioRows,
  "Errors",
  "Connections failed",
  "Agents",
];
/** The chart whose caption is `caption`, as HTML. */
const chart = (html: string, caption: string) =>
  html.split("<figure>").find((part) => part.includes(`<figcaption>${caption}</figcaption>`))!;

describe("the printed report is scenario-first", () => {
  it("keeps round trips and messages for ping-pong, with the SLO's line on the round-trip chart", () => {
    const html = reportHtml(report("ping-pong", [{ metric: "rtt-p99-ms", below: 10 }]));
    expect(charts(html)).toEqual(countedCharts("Round trip p99 (ms)"));
    expect(figures(html)).toEqual(figureRows("Messages per second", "Round trip p50", "Round trip p99"));
    expect(html.match(/class="slo"/g)).toHaveLength(1);
    expect(reportHeadline(report("ping-pong").run)).toBe(
      "Ran 8 clients, 320 messages/s, round trip p99 4.5 ms; the plan sets no SLOs to judge it by.",
    );
  });

  it("leads a movement-sync run with broadcast p99 and reach, its SLO on the broadcast chart, and no round-trip chart", () => {
    const html = reportHtml(report("movement-sync", [{ metric: "broadcast-p99-ms", below: 50 }]));
    expect(charts(html)).toEqual(countedCharts("Broadcast p99 (ms)", "Broadcast reach (%)"));
    expect(figures(html)).toEqual(figureRows("Broadcast p99", "Broadcast reach", "Messages per second"));
    expect(html).toContain("<td>Broadcast p99</td><td>12.5 ms</td>");
    expect(html).toContain("<td>Broadcast reach</td><td>98.7 %</td>");
    expect(html).not.toContain("Round trip");
    expect(chart(html, "Broadcast p99 (ms)")).toContain('class="slo"');
    expect(reportHeadline(report("movement-sync").run)).toBe(
      "Ran 8 clients, 320 messages/s, broadcast p99 12.5 ms, broadcast reach 98.7 %; the plan sets no SLOs to judge it by.",
    );
  });

  it("leads a login storm with connect and login p99", () => {
    const html = reportHtml(report("login-storm", [{ metric: "login-p99-ms", below: 100 }]));
    expect(charts(html)).toEqual(countedCharts("Connect p99 (ms)", "Login p99 (ms)"));
    expect(figures(html).slice(0, 4)).toEqual(["Peak clients", "Duration", "Connect p99", "Login p99"]);
    expect(chart(html, "Login p99 (ms)")).toContain('class="slo"');
    expect(reportHeadline(report("login-storm").run)).toMatch(/connect p99 3 ms, login p99 40 ms/);
  });

  it("shows a script run its own metrics by their names, and no message count, which the engine does not keep for a script", () => {
    const html = reportHtml(report("script"));
    expect(charts(html)).toEqual([
      "connect-ms p99 (ms)",
      "reply-ms p99 (ms)",
      "replies per second (count/s)",
      "Clients (clients)",
    ]);
    expect(figures(html)).toEqual(
      figureRows("connect-ms p50", "connect-ms p99", "reply-ms p50", "reply-ms p99", "replies total"),
    );
    expect(html).toContain("<td>reply-ms p99</td><td>7.5 ms</td>");
    expect(html).toContain("<td>replies total</td><td>1,200</td>");
    expect(html).not.toMatch(/Messages|messages\/s|Round trip|class="slo"/);
  });

  it("draws each script SLO's line on its metric's chart: a timing's on its percentile, a count's on the running total", () => {
    const html = reportHtml(
      report("script", [
        { metric: "script:reply-ms-p99", below: 50 },
        { metric: "script:connect-ms-p50", below: 20 },
        { metric: "script:replies-count", below: 5000 },
      ]),
    );
    expect(charts(html)).toEqual([
      "connect-ms p50 (ms)",
      "connect-ms p99 (ms)",
      "reply-ms p99 (ms)",
      "replies per second (count/s)",
      "replies running total (count)",
      "Clients (clients)",
    ]);
    const withSloLine = (captions: string[]) =>
      captions.filter((caption) => chart(html, caption).includes('class="slo"'));
    expect(withSloLine(["connect-ms p50 (ms)", "reply-ms p99 (ms)", "replies running total (count)"])).toHaveLength(3);
    expect(withSloLine(["connect-ms p99 (ms)", "replies per second (count/s)"])).toEqual([]);
    // The running total climbs second by second (400, 800, 1,200): three points, each higher on the page (smaller y).
    const heights = chart(html, "replies running total (count)")
      .match(/<polyline points="([^"]*)"/)![1]!
      .split(" ")
      .map((xy) => Number(xy.split(",")[1]));
    expect(heights).toHaveLength(3);
    expect(heights[0]! > heights[1]! && heights[1]! > heights[2]!).toBe(true);
    expect(
      reportHeadline(
        report("script", [
          { metric: "script:reply-ms-p99", below: 50 },
          { metric: "script:replies-count", below: 5000 },
        ]).run,
      ),
    ).toMatch(/^Ran 8 clients, reply-ms p99 7\.5 ms, replies count 1,200;/);
  });
});

describe("the printed report says SLO metrics in words", () => {
  it("draws each rate SLO as the run page does: the rate per second in percent, as the judge reads it, with its threshold in percent", () => {
    const html = reportHtml(
      report("movement-sync", [
        { metric: "loss-rate", below: 0.05 },
        { metric: "error-rate", below: 0.01 },
      ]),
    );
    expect(charts(html)).toEqual(
      countedCharts("Broadcast p99 (ms)", "Broadcast reach (%)", "Loss rate (%)", "Error rate (%)"),
    );
    const lossChart = chart(html, "Loss rate (%)");
    // Loss is 1 − reach, 1.3 % a second; the 5 % line sets the axis (its top tick 6 %), not 0.05 of it.
    expect(lossChart).toContain('class="slo"');
    expect(lossChart).toContain("SLO: Loss rate &#60; 5 %");
    expect(lossChart).toMatch(/text-anchor="end">6 %<\/text><line class="axis"/);
  });

  it("puts a capacity search's sentence and its SLOs in words and units, as the dashboard does", () => {
    const searched = report("ping-pong");
    const sentence =
      "Holds 15 clients while meeting rtt-p99-ms < 50, error-rate < 0.01; step 4 broke rtt-p99-ms (82.5, must be below 50).";
    searched.run.capacity = capacityEstimate({ clients: 15, sentence });
    const html = reportHtml(searched);
    expect(reportHeadline(searched.run)).toBe(
      "Holds 15 clients while meeting Round trip p99 below 50 ms, Error rate below 1 %; step 4 broke Round trip p99 (82.5 ms, must be below 50 ms).",
    );
    expect(html).not.toMatch(/rtt-p99-ms|error-rate/);
  });
});

describe("the printed report reads like the dashboard, for its reader", () => {
  const ended = (kind: keyof typeof SCENARIOS, slos: PlanSpecInput["slos"] = []) => {
    const printed = report(kind, slos);
    printed.run.startedAt = new Date(T0 * 1000).toISOString();
    printed.run.endedAt = new Date((T0 + 29) * 1000).toISOString();
    return printed;
  };

  it("writes dates, durations and numbers in the reader's locale and zone, not ISO text in UTC or '0s'", () => {
    // T0 is 2027-01-15T08:00:00Z: 09:00 in Berlin.
    const html = reportHtml(ended("ping-pong"), { locale: "en-US", timeZone: "Europe/Berlin" });
    expect(html).toMatch(/started Jan 15, 2027, 9:00:00\sAM · ended Jan 15, 2027, 9:00:29\sAM/);
    expect(html).not.toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect(html).toContain("<td>Duration</td><td>3 s</td>");
    const german = reportHtml(ended("ping-pong", [{ metric: "rtt-p99-ms", below: 10 }]), {
      locale: "de-DE",
      timeZone: "UTC",
    });
    expect(german).toContain("<td>Round trip p99</td><td>4,5 ms</td>");
    expect(german).toContain("15.01.2027, 08:00:00");
    expect(german).toContain('lang="de-DE"');
  });

  it("labels its axes on round steps and times of day, and names its SLO line", () => {
    const html = reportHtml(ended("ping-pong", [{ metric: "rtt-p99-ms", below: 10 }]), {
      locale: "en-US",
      timeZone: "UTC",
    });
    const rtt = html.split("<figure>").find((part) => part.includes("<figcaption>Round trip p99 (ms)</figcaption>"))!;
    // The highest value is the SLO (10 ms over points at 4.5 ms): 0, 2.5, 5, 7.5, 10 ms, the top tick the SLO's.
    // The y axis labels, left of the plot.
    expect([...rtt.matchAll(/<text x="42" y="[^"]+" text-anchor="end">([^<]+)</g)].map((match) => match[1])).toEqual([
      "0 ms",
      "2.5 ms",
      "5 ms",
      "7.5 ms",
      "10 ms",
    ]);
    expect(rtt).toMatch(/>8:00:00\sAM</);
    expect(rtt).toContain("SLO: Round trip p99 &#60; 10 ms");
  });

  it("says a run that ended before its start never started", () => {
    const refused = report("ping-pong");
    refused.run.status = "failed";
    refused.run.endedAt = new Date(T0 * 1000 + 500).toISOString();
    expect(reportHtml(refused, { locale: "en-US", timeZone: "UTC" })).toMatch(
      /created Jan 15, 2027, 8:00:00\sAM · ended Jan 15, 2027, 8:00:00\sAM before it started/,
    );
  });
});

describe("the printed report has a section per network cohort", () => {
  it("says each cohort's network as planned, its own figures, the SLO naming it and its p99 over time with that SLO's line", () => {
    const base = report("ping-pong");
    const spec = PlanSpec.parse({
      ...base.run.spec,
      network: [
        { name: "mobile", share: 0.5, delayMs: 20, lossPercent: 10 },
        { name: "wifi", clients: 2, jitterMs: 3 },
      ],
      slos: [{ metric: "rtt-p99-ms", below: 100, cohort: "mobile" }],
    });
    const mobile = { ...base.run.summary!, peakClients: 4, rttP50Ms: 41, rttP99Ms: 62.5, applied: "datagram" as const };
    const verdict = {
      passed: true,
      reasons: [],
      warnings: [],
      slos: [
        {
          metric: "rtt-p99-ms",
          below: 100,
          cohort: "mobile",
          value: 62.5,
          status: "met" as const,
          passed: true,
          breachedSeconds: 0,
          measuredSeconds: 3,
          firstBreachAt: null,
        },
      ],
    };
    const series = base.series.map((point) => ({
      ...point,
      cohorts: { mobile: { ...point, rttP99Ms: 62.5, applied: "datagram" as const } },
    }));
    const html = reportHtml(
      {
        ...base,
        series,
        run: { ...base.run, spec, verdict, summary: { ...base.run.summary!, cohorts: { mobile } } },
      } as RunReport,
      { locale: "en-US", timeZone: "UTC" },
    );
    const section = html.split("<h2>Network cohort mobile</h2>")[1]!.split("<h2>")[0]!;
    expect(section).toContain("50 % of the clients: delay 20 ms, loss 10 %, each way; applied per datagram");
    expect(section).toContain("<td>Round trip p99</td><td>62.5 ms</td>");
    expect(section).toContain("<td>Round trip p99, cohort mobile</td><td>below 100 ms</td>");
    expect(section).toContain("<figcaption>Round trip p99, cohort mobile (ms)</figcaption>");
    expect(section).toContain('class="slo"');
    // A cohort its agents measured nothing of says so, with its network as planned.
    const wifi = html.split("<h2>Network cohort wifi</h2>")[1]!.split("<h2>")[0]!;
    expect(wifi).toContain("2 clients: jitter ± 3 ms, each way");
    expect(wifi).toContain("Nothing was measured of this cohort");
  });
});
