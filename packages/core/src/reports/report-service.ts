import { ThrongError } from "@throng/protocol/errors";
import type { CreateShareLink, RunComparison, ShareLinkCreated, ShareLinkView } from "@throng/protocol/report";
import { SeriesPoint } from "@throng/protocol/snapshot";
import { PER_SECOND_FIGURES, secondSpread, withinNoise } from "@throng/protocol/compare-noise";
import { kcpFigures } from "@throng/protocol/kcp-figures";
import { maskPlanSecrets } from "@throng/protocol/plan-secrets";
import type { RunReport, RunSummary } from "@throng/protocol/run";
import type { Repos } from "@throng/db/repos";
import type { ShareLinkRow } from "@throng/db/repos/reports";
import type { Clock } from "../ports";
import { findLiveSecret, generateSecret, hashSecret } from "../fleet/secrets";
import type { AuditLog } from "../orgs/audit";
import { authorize, type Actor } from "../orgs/permissions";
import { toRunView } from "../runs/run-view";
import { errorSamplesCsv, seriesCsv } from "./series-csv";
import { serverSeriesOf } from "../metrics/server-watch";
import { errorSamplesOf } from "../metrics/error-samples";
import { roomsOf } from "../metrics/rooms";
import type { RunRangeQuery, RunRangeSummary } from "@throng/protocol/run-range";
import { rangeSeconds, startSecond, summariseRange } from "./range-summary";
import type { DistributionQuery, LatencyDistribution } from "@throng/protocol/latency-distribution";
import { printedDistributions, runDistribution } from "../metrics/latency-distribution";

export const SHARE_LINK_PREFIX = "thr_shr_";
const COMPARED: (keyof RunSummary)[] = [
  "peakClients",
  "peakConnections",
  "messagesPerSec",
  "rttP50Ms",
  "rttP90Ms",
  "rttP99Ms",
  "rttMaxMs",
  "errors",
  "connectionsFailed",
];
/** Compared only when a run used KCP (TCP beside KCP): the protocol's own figures, null for the run that has none. */
const KCP_COMPARED = ["kcpRetransmits", "kcpOverheadPercent"] as const;

/** A run's compared figures: its summary's, and KCP's retransmissions and overhead (kcp-figures.ts) when asked. */
function comparedFigures(summary: RunSummary | null | undefined, withKcp: boolean): Record<string, number | null> {
  const figures: Record<string, number | null> = Object.fromEntries(
    COMPARED.map((k) => [k, (summary?.[k] as number | null | undefined) ?? null]),
  );
  if (!withKcp) return figures;
  const kcp = summary ? kcpFigures(summary) : null;
  return {
    ...figures,
    kcpRetransmits: kcp?.retransmits ?? null,
    kcpOverheadPercent:
      kcp?.overheadPercent === null || kcp?.overheadPercent === undefined
        ? null
        : Math.round(kcp.overheadPercent * 10) / 10,
  };
}

function linkView(row: ShareLinkRow): ShareLinkView {
  return {
    id: row.id,
    runId: row.runId,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

/** Reports, exports, comparisons and public share links. */
export function createReportService(deps: { repos: Repos; audit: AuditLog; clock: Clock; webOrigin: string }) {
  const { repos, audit, clock } = deps;

  async function reportOf(orgId: string, runId: string): Promise<RunReport> {
    const row = await repos.runs.get(orgId, runId);
    if (!row) throw new ThrongError("not_found", `No run ${runId} in this organisation`);
    const series = (await repos.snapshots.listSeries(orgId, runId)).map((p) => SeriesPoint.parse(p));
    const view = toRunView(row, await repos.runs.listEvents(orgId, runId));
    // A report is a document that leaves the organisation (JSON export, PDF, share link): its plan's secret-bearing
    // fields are masked (plan-secrets.ts). The run and the plan themselves are shown as written to the org's members.
    const run = { ...view, spec: maskPlanSecrets(view.spec) };
    const errors = await errorSamplesOf(repos, orgId, runId, run.startedAt);
    const rooms = run.spec.scenario.kind === "movement-sync" ? await roomsOf(repos, orgId, runId) : undefined;
    return {
      run,
      series,
      ...(run.spec.watch ? { server: await serverSeriesOf(repos, orgId, runId) } : {}),
      errorSamples: errors.samples,
      ...(rooms ? { rooms } : {}),
    };
  }

  /** The run's summary over `query`'s seconds, merged from their stored snapshots; none before the run started. */
  async function rangeSummaryOf(orgId: string, runId: string, range: RunRangeQuery): Promise<RunRangeSummary> {
    const row = await repos.runs.get(orgId, runId);
    if (!row) throw new ThrongError("not_found", `No run ${runId} in this organisation`);
    if (!row.startedAt) return { runId, ...range, seconds: 0, summary: null };
    const start = startSecond(row.startedAt);
    const { first, after } = rangeSeconds(start, range);
    return {
      runId,
      ...range,
      ...summariseRange(await repos.snapshots.listRunSeconds(orgId, runId, first, after), start, range),
    };
  }

  /** The share link's org and run, or the one refusal for a link that is malformed, unknown, expired or revoked. */
  async function sharedRun(token: string): Promise<{ orgId: string; runId: string }> {
    const refused = new ThrongError(
      "not_found",
      "This report link is unknown, expired or revoked: ask its owner for a new one",
    );
    const link = await findLiveSecret(token, SHARE_LINK_PREFIX, repos.reports.findShareLinkByHash, clock.now());
    if (!link) throw refused;
    return link;
  }

  // A plain object whose methods never use `this`, so a route may hand one on as a function (`read: reports.csv`).
  const service = {
    async report(actor: Actor, runId: string): Promise<RunReport> {
      authorize(actor, "run.read");
      return reportOf(actor.orgId, runId);
    },

    async csv(actor: Actor, runId: string): Promise<string> {
      authorize(actor, "run.read");
      return seriesCsv((await reportOf(actor.orgId, runId)).series);
    },

    /** The run's error samples as CSV: the export beside the series' (secrets masked as everywhere). */
    async errorsCsv(actor: Actor, runId: string): Promise<string> {
      authorize(actor, "run.read");
      return errorSamplesCsv((await reportOf(actor.orgId, runId)).errorSamples ?? []);
    },

    async compare(actor: Actor, runIds: string[]): Promise<RunComparison> {
      authorize(actor, "run.read");
      if (runIds.length < 2)
        throw new ThrongError("validation_failed", "Compare needs at least two run ids (?ids=a,b)", [
          { path: "ids", message: "give two or more run ids" },
        ]);
      const reports = await Promise.all(runIds.map((id) => reportOf(actor.orgId, id)));
      const withKcp = reports.some((r) => r.run.summary && kcpFigures(r.run.summary));
      const figures = reports.map((r) => comparedFigures(r.run.summary, withKcp));
      const keys = [...COMPARED, ...(withKcp ? KCP_COMPARED : [])];
      const spreads = reports.map((r) =>
        Object.fromEntries(Object.keys(PER_SECOND_FIGURES).map((k) => [k, secondSpread(r.series, k)])),
      );
      const base = figures[0]!;
      return {
        runs: reports.map((r, i) => ({
          id: r.run.id,
          planName: r.run.planName,
          createdAt: r.run.createdAt,
          status: r.run.status,
          protocol: r.run.spec.target.protocol,
          summary: figures[i]!,
          outcome: r.run.verdict?.outcome ?? null,
          slos: r.run.verdict?.slos ?? [],
          deltaPercent: Object.fromEntries(
            keys.map((k) => {
              const from = base[k] ?? null;
              const to = figures[i]![k] ?? null;
              return [
                k,
                from === null || to === null || from === 0 ? null : Math.round(((to - from) / from) * 1000) / 10,
              ];
            }),
          ),
          spread: spreads[i]!,
          withinNoise: Object.fromEntries(
            Object.keys(PER_SECOND_FIGURES).map((k) => [
              k,
              i === 0
                ? null
                : withinNoise(base[k] ?? null, figures[i]![k] ?? null, [
                    spreads[0]![k] ?? null,
                    spreads[i]![k] ?? null,
                  ]),
            ]),
          ),
        })),
      };
    },

    async createShareLink(actor: Actor, runId: string, body: CreateShareLink): Promise<ShareLinkCreated> {
      authorize(actor, "share.manage");
      if (!(await repos.runs.get(actor.orgId, runId)))
        throw new ThrongError("not_found", `No run ${runId} in this organisation`);
      const token = generateSecret(SHARE_LINK_PREFIX);
      const expiresAt = body.expiresInDays ? new Date(clock.now() + body.expiresInDays * 86_400_000) : null;
      const row = await repos.reports.insertShareLink(actor.orgId, {
        id: crypto.randomUUID(),
        runId,
        tokenHash: hashSecret(token),
        createdBy: actor.userId,
        expiresAt,
      });
      await audit.record(actor.orgId, actor.label, "share-link.created", row.id, {
        runId,
        expiresAt: expiresAt?.toISOString() ?? null,
      });
      return { ...linkView(row), token, url: `${deps.webOrigin}/share/${token}` };
    },

    async shareLinks(actor: Actor, runId: string): Promise<ShareLinkView[]> {
      authorize(actor, "run.read");
      if (!(await repos.runs.get(actor.orgId, runId)))
        throw new ThrongError("not_found", `No run ${runId} in this organisation`);
      return (await repos.reports.listShareLinks(actor.orgId, runId)).map(linkView);
    },

    async revokeShareLink(actor: Actor, id: string): Promise<void> {
      authorize(actor, "share.manage");
      if (!(await repos.reports.revokeShareLink(actor.orgId, id, new Date(clock.now()))))
        throw new ThrongError("not_found", `No active share link ${id} in this organisation`);
      await audit.record(actor.orgId, actor.label, "share-link.revoked", id);
    },

    /** Anyone with the link: the report of that one run, read-only; refused once expired or revoked. */
    async publicReport(token: string): Promise<RunReport> {
      const link = await sharedRun(token);
      const report = await reportOf(link.orgId, link.runId);
      // The note and tags are part of the report; which member started the run or last edited them (an email) is
      // not for whoever holds the link.
      return {
        ...report,
        run: { ...report.run, startedBy: null, startedByName: null, notesEditedBy: null, notesEditedByName: null },
      };
    },

    /** GET /api/runs/:id/summary: the summary of the seconds from `from` up to `to` (seconds since the run's start). */
    /** The route's schema parsed the range (RunRangeQuery), once. */
    async rangeSummary(actor: Actor, runId: string, range: RunRangeQuery): Promise<RunRangeSummary> {
      authorize(actor, "run.read");
      return rangeSummaryOf(actor.orgId, runId, range);
    },

    /** The same for the run behind a share link, refused as its report is. */
    async publicRangeSummary(token: string, range: RunRangeQuery): Promise<RunRangeSummary> {
      const link = await sharedRun(token);
      return rangeSummaryOf(link.orgId, link.runId, range);
    },

    /** A shared run's latency distribution (the run page's, GET /api/runs/:id/distribution), refused as its report is. */
    async publicDistribution(token: string, query: DistributionQuery): Promise<LatencyDistribution> {
      const link = await sharedRun(token);
      const row = await repos.runs.get(link.orgId, link.runId);
      if (!row) throw new ThrongError("not_found", `No run ${link.runId} in this organisation`);
      return runDistribution(repos, link.orgId, { id: row.id, startedAt: row.startedAt?.toISOString() ?? null }, query);
    },

    /** A shared report and what its PDF draws of its distributions (the signed-in PDF's, over the whole run). */
    async publicPrintedReport(
      token: string,
    ): Promise<{ report: RunReport; distributions: { name: string; distribution: LatencyDistribution }[] }> {
      const link = await sharedRun(token);
      const report = await service.publicReport(token);
      return { report, distributions: await printedDistributions(repos, link.orgId, report.run) };
    },
  };
  return service;
}
export type ReportService = ReturnType<typeof createReportService>;
