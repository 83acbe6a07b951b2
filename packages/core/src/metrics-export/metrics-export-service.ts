import { ThrongError } from "@throng/protocol/errors";
import {
  type MetricsExportSettings,
  MetricsSink,
  type PutMetricsExportSink,
  type MetricsExportSinkView,
} from "@throng/protocol/metrics-export";
import type { PlanSpec } from "@throng/protocol/plan";
import { RunStatus, RunSummary } from "@throng/protocol/run";
import { SeriesPoint } from "@throng/protocol/snapshot";
import type { Repos } from "@throng/db/repos";
import type { MetricsSinkRow } from "@throng/db/repos/metrics-export";
import type { Clock, Jobs, Log } from "../ports";
import { authorize, type Actor } from "../orgs/permissions";
import { isTerminal } from "../runs/run-state";
import {
  NO_TOTALS,
  seriesOfSeconds,
  seriesOfSummary,
  settledSeconds,
  type ExportSeries,
  type ExportTotals,
  type RunLabels,
} from "./export-series";
import { rttBucketsBySecond } from "./rtt-buckets";
import type { Sealer } from "./sealed-secrets";

/** A sink's endpoint with its credentials opened: what a push needs, never what the API shows. */
export interface SinkTarget {
  url: string;
  /** The Authorization header's value, when the sink has credentials. */
  authorization: string | null;
  headers: Record<string, string>;
}

/** Sends series to one sink (encoding is the adapter's); throws with what the endpoint said when it refused them. */
export type MetricsPush = (sink: MetricsSink, target: SinkTarget, series: ExportSeries[]) => Promise<void>;

/** How often a live run's settled seconds go out, and how old a complete second must be. */
export const EXPORT_INTERVAL_MS = 5_000;
const SETTLE_MS = 2_000;
const LIVE = ["running", "degraded"];

function toSinkView(row: MetricsSinkRow): MetricsExportSinkView {
  return {
    sink: MetricsSink.parse(row.sink),
    url: row.url,
    auth: row.auth as MetricsExportSinkView["auth"],
    username: row.username,
    secret: row.secretSealed ? "set" : "not set",
    headerNames: row.headerNames,
    lastSuccessAt: row.lastSuccessAt?.toISOString() ?? null,
    lastError: row.lastError,
    lastErrorAt: row.lastErrorAt?.toISOString() ?? null,
  };
}

interface MetricsExportDeps {
  repos: Repos;
  jobs: Jobs;
  sealer: Sealer;
  clock: Clock;
  log?: Log;
  push?: MetricsPush;
}

function targetOf(sealer: Sealer, row: MetricsSinkRow): SinkTarget {
  const secret = row.secretSealed ? sealer.open(row.secretSealed) : null;
  const authorization =
    row.auth === "basic"
      ? `Basic ${Buffer.from(`${row.username ?? ""}:${secret ?? ""}`).toString("base64")}`
      : row.auth === "bearer" && secret
        ? `Bearer ${secret}`
        : null;
  return {
    url: row.url,
    authorization,
    headers: row.headersSealed ? (JSON.parse(sealer.open(row.headersSealed)) as Record<string, string>) : {},
  };
}

/** One push, its outcome recorded for the settings page; the error (if any) comes back rather than thrown. */
async function pushRecorded(
  deps: MetricsExportDeps,
  orgId: string,
  row: MetricsSinkRow,
  series: ExportSeries[],
): Promise<string | null> {
  if (!deps.push) return null;
  let error: string | null = null;
  try {
    await deps.push(MetricsSink.parse(row.sink), targetOf(deps.sealer, row), series);
  } catch (cause) {
    error = (cause as Error).message;
  }
  await deps.repos.metricsExport.recordDelivery(orgId, row.sink, error);
  return error;
}

/** The sinks this run's plan turned on that the org has set up. */
async function sinksOfRun(repos: Repos, orgId: string, spec: PlanSpec): Promise<MetricsSinkRow[]> {
  const wanted = spec.export ?? {};
  if (!wanted.prometheus && !wanted.otlp) return [];
  return (await repos.metricsExport.listSinks(orgId)).filter((row) => wanted[MetricsSink.parse(row.sink)]);
}

/** One push of a run's settled seconds (and, once it ended, its summary) to each of its sinks. */
async function pushRun(deps: MetricsExportDeps, orgId: string, runId: string): Promise<void> {
  const { repos, jobs, clock } = deps;
  const run = await repos.runs.get(orgId, runId);
  if (!run) return;
  const spec = run.spec;
  const sinks = await sinksOfRun(repos, orgId, spec);
  if (sinks.length === 0) return;
  const ended = isTerminal(RunStatus.parse(run.status));
  if (!ended && !LIVE.includes(run.status)) return; // still queued: its start queues the first push
  // The next push is queued first: a slow or failing sink must not stop the run's later seconds from going out.
  if (!ended)
    await jobs.exportRunSeries(
      { orgId, runId },
      EXPORT_INTERVAL_MS,
      `tick-${Math.floor(clock.now() / EXPORT_INTERVAL_MS) + 1}`,
    );
  const org = await repos.orgs.getOrganization(orgId);
  const labels: RunLabels = {
    run_id: runId,
    plan: run.planName,
    scenario: spec.scenario.kind,
    org: org?.slug ?? orgId,
  };
  const points = (await repos.snapshots.listSeconds(orgId, runId)).map((p) => SeriesPoint.parse(p));
  const loadShards = (await repos.runs.listShards(orgId, runId)).filter((shard) => shard.role === "load").length;
  const summary = run.summary ? RunSummary.parse(run.summary) : null;
  const failures: string[] = [];
  const readyBySink = await Promise.all(
    sinks.map(async (sink) => {
      const progress = await repos.metricsExport.getRunExport(orgId, runId, sink.sink);
      return {
        sink,
        progress,
        ready: settledSeconds(points, progress?.lastSecond ?? null, {
          ended,
          loadShards,
          nowMs: clock.now(),
          settleMs: SETTLE_MS,
        }),
      };
    }),
  );
  // The RTT histogram's buckets of only the seconds going out now, read once for every sink.
  const pending = readyBySink.flatMap(({ ready }) => ready.map((p) => p.t));
  const rttBySecond = pending.length
    ? rttBucketsBySecond(
        await repos.snapshots.listRttHistograms(orgId, runId, Math.min(...pending), Math.max(...pending)),
      )
    : new Map();
  for (const { sink, progress, ready } of readyBySink) {
    const { series, totals } = seriesOfSeconds(
      ready,
      labels,
      { ...NO_TOTALS, ...(progress?.totals as Partial<ExportTotals> | undefined) },
      run.startedAt?.getTime() ?? (points[0]?.t ?? 0) * 1000,
      rttBySecond,
    );
    const lastSecond = ready.at(-1)?.t ?? progress?.lastSecond ?? null;
    const withSummary = ended && summary && !progress?.summarySent;
    // The summary is stamped after the last second, so it never lands before a sample the sink already holds.
    const endedAtMs = Math.max(run.endedAt?.getTime() ?? clock.now(), ((lastSecond ?? 0) + 1) * 1000);
    const all = withSummary ? [...series, ...seriesOfSummary(summary, labels, endedAtMs)] : series;
    if (all.length === 0) continue;
    const error = await pushRecorded(deps, orgId, sink, all);
    if (error) {
      deps.log?.warn(
        { runId, sink: sink.sink, err: error },
        "metrics export failed; the next push retries from the same second",
      );
      failures.push(`${sink.sink}: ${error}`);
      continue;
    }
    await repos.metricsExport.advanceRunExport(orgId, runId, sink.sink, {
      lastSecond,
      totals: { ...totals },
      summarySent: Boolean(progress?.summarySent || withSummary),
    });
  }
  // A live run's next tick retries; an ended run has no next tick, so its job fails and the queue retries it.
  if (ended && failures.length > 0) throw new Error(`metrics export of run ${runId} failed: ${failures.join("; ")}`);
}

/** The org's sinks as the settings page shows and changes them; the secrets sealed and write-only. */
function createSinkSettings(deps: MetricsExportDeps) {
  const { repos, jobs, sealer } = deps;
  return {
    async settings(actor: Actor): Promise<MetricsExportSettings> {
      authorize(actor, "settings.read");
      const rows = await repos.metricsExport.listSinks(actor.orgId);
      const view = (sink: MetricsSink) => {
        const row = rows.find((r) => r.sink === sink);
        return row ? toSinkView(row) : null;
      };
      return { prometheus: view("prometheus"), otlp: view("otlp") };
    },

    async putSink(actor: Actor, sink: MetricsSink, body: PutMetricsExportSink): Promise<MetricsExportSinkView> {
      authorize(actor, "settings.manage");
      const stored = await repos.metricsExport.getSink(actor.orgId, sink);
      const sameKind = stored?.auth === body.auth.kind;
      // Write-only secrets: left out, the stored one stays (when the kind of auth is unchanged).
      const secret =
        body.auth.kind === "basic" ? body.auth.password : body.auth.kind === "bearer" ? body.auth.token : undefined;
      const secretSealed =
        body.auth.kind === "none"
          ? null
          : secret !== undefined
            ? sealer.seal(secret)
            : sameKind
              ? (stored?.secretSealed ?? null)
              : null;
      if (body.auth.kind === "bearer" && !secretSealed)
        throw new ThrongError(
          "validation_failed",
          "Invalid metrics export settings (auth.token: give the bearer token)",
          [{ path: "auth.token", message: "give the bearer token" }],
        );
      const headers = body.headers;
      await repos.metricsExport.putSink(actor.orgId, sink, {
        url: body.url,
        auth: body.auth.kind,
        username: body.auth.kind === "basic" ? body.auth.username : null,
        secretSealed,
        headersSealed:
          headers === undefined
            ? (stored?.headersSealed ?? null)
            : Object.keys(headers).length
              ? sealer.seal(JSON.stringify(headers))
              : null,
        headerNames: headers === undefined ? (stored?.headerNames ?? []) : Object.keys(headers),
      });
      return toSinkView((await repos.metricsExport.getSink(actor.orgId, sink))!);
    },

    async removeSink(actor: Actor, sink: MetricsSink): Promise<void> {
      authorize(actor, "settings.manage");
      if (!(await repos.metricsExport.deleteSink(actor.orgId, sink)))
        throw new ThrongError("not_found", `No ${sink} metrics export is set up in this organisation`);
    },

    /** The settings page's "Send test": the workers push one sample; the outcome shows as the sink's last status. */
    async requestTest(actor: Actor, sink: MetricsSink): Promise<MetricsExportSinkView> {
      authorize(actor, "settings.manage");
      const row = await repos.metricsExport.getSink(actor.orgId, sink);
      if (!row)
        throw new ThrongError(
          "not_found",
          `No ${sink} metrics export is set up in this organisation: save its endpoint first`,
        );
      await jobs.testMetricsExport({ orgId: actor.orgId, sink });
      return toSinkView(row);
    },
  };
}

/** The workers' steps: the test push, a run's first push at its start, the rest at its end, each push. */
function createRunExports(deps: MetricsExportDeps) {
  const { repos, jobs, clock } = deps;
  return {
    /** Workers: the test push (`throng_export_test` = 1, labelled with the org). */
    async test(orgId: string, sink: MetricsSink): Promise<void> {
      const row = await repos.metricsExport.getSink(orgId, sink);
      if (!row) return;
      const org = await repos.orgs.getOrganization(orgId);
      await pushRecorded(deps, orgId, row, [
        {
          name: "throng_export_test",
          kind: "gauge",
          unit: "1",
          labels: { org: org?.slug ?? orgId },
          samples: [{ timestampMs: clock.now(), value: 1 }],
        },
      ]);
    },

    /** Workers, once a run has started: its first push, when its plan exports. */
    async runStarted(orgId: string, runId: string): Promise<void> {
      const run = await repos.runs.get(orgId, runId);
      if (!run || !LIVE.includes(run.status)) return;
      if ((await sinksOfRun(repos, orgId, run.spec)).length > 0)
        await jobs.exportRunSeries({ orgId, runId }, EXPORT_INTERVAL_MS, "start");
    },

    /**
     * Workers, once a run has ended (maybe twice): the seconds still held back and the summary. The org's queued
     * runs take the agents it freed (started by the orchestrator, not a start job): their first push is queued too.
     */
    async runEnded(orgId: string, runId: string): Promise<void> {
      const run = await repos.runs.get(orgId, runId);
      if (run && (await sinksOfRun(repos, orgId, run.spec)).length > 0)
        await jobs.exportRunSeries({ orgId, runId }, 0, `end-${clock.now()}`);
      for (const queuedId of await repos.runs.listQueuedIds(orgId)) {
        const queued = await repos.runs.get(orgId, queuedId);
        if (queued && (await sinksOfRun(repos, orgId, queued.spec)).length > 0)
          await jobs.exportRunSeries({ orgId, runId: queuedId }, EXPORT_INTERVAL_MS, `start-after-${runId}`);
      }
    },

    /** Workers: one push of a run's series to each of its sinks. */
    pushRun: (orgId: string, runId: string): Promise<void> => pushRun(deps, orgId, runId),
  };
}

/**
 * Run series out to the org's own Prometheus (remote write) and OTLP endpoints: the settings (credentials sealed
 * at rest, shown only as set or not), and the workers' steps: a live run's settled seconds every few seconds, the
 * rest and the summary when it ends. Progress is a watermark per run and sink, so a step may run twice.
 */
export function createMetricsExportService(deps: MetricsExportDeps) {
  return { ...createSinkSettings(deps), ...createRunExports(deps) };
}
export type MetricsExportService = ReturnType<typeof createMetricsExportService>;
