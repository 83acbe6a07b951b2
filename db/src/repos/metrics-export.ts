import type { Db } from "../client";
import { deleteOrgRow, selectOrgRow, selectOrgRows, updateOrgRow } from "./org-rows";

/** Where a sink pushes and how it signs in (its secret and headers sealed): what its settings form sets. */
export interface MetricsSinkSettings {
  url: string;
  auth: string;
  username: string | null;
  secretSealed: string | null;
  headersSealed: string | null;
  headerNames: string[];
}

export interface MetricsSinkRow extends MetricsSinkSettings {
  orgId: string;
  sink: string;
  lastSuccessAt: Date | null;
  lastError: string | null;
  lastErrorAt: Date | null;
}

/** How far one run's series has gone to one sink. */
export interface RunExportRow {
  lastSecond: number | null;
  totals: Record<string, number>;
  summarySent: boolean;
}

const sinkColumns = [
  "org_id as orgId",
  "sink",
  "url",
  "auth",
  "username",
  "secret_sealed as secretSealed",
  "headers_sealed as headersSealed",
  "header_names as headerNames",
  "last_success_at as lastSuccessAt",
  "last_error as lastError",
  "last_error_at as lastErrorAt",
] as const;

/** The org's metrics sinks (credentials arrive sealed) and each run's export progress; scoped by orgId. */
export function createMetricsExportRepo(db: Db) {
  return {
    async listSinks(orgId: string): Promise<MetricsSinkRow[]> {
      return selectOrgRows(db, "metrics_export_sinks", orgId).select(sinkColumns).orderBy("sink").execute();
    },
    async getSink(orgId: string, sink: string): Promise<MetricsSinkRow | undefined> {
      return selectOrgRow(db, "metrics_export_sinks", orgId, "sink", sink).select(sinkColumns).executeTakeFirst();
    },
    /** Creates or replaces the sink's settings; its delivery status starts afresh (a new endpoint, new outcomes). */
    async putSink(orgId: string, sink: string, settings: MetricsSinkSettings): Promise<void> {
      const values = {
        url: settings.url,
        auth: settings.auth,
        username: settings.username,
        secret_sealed: settings.secretSealed,
        headers_sealed: settings.headersSealed,
        header_names: settings.headerNames,
        last_success_at: null,
        last_error: null,
        last_error_at: null,
        updated_at: new Date(),
      };
      await db
        .insertInto("metrics_export_sinks")
        .values({ org_id: orgId, sink, ...values })
        .onConflict((oc) => oc.columns(["org_id", "sink"]).doUpdateSet(values))
        .execute();
    },
    async deleteSink(orgId: string, sink: string): Promise<boolean> {
      return deleteOrgRow(db, "metrics_export_sinks", orgId, "sink", sink);
    },
    /** A delivery's outcome for the settings page: a success clears nothing but stamps the time; an error keeps its text. */
    async recordDelivery(orgId: string, sink: string, error: string | null): Promise<void> {
      await updateOrgRow(db, "metrics_export_sinks", orgId, "sink", sink)
        .set(
          error === null
            ? { last_success_at: new Date() }
            : { last_error: error.slice(0, 1000), last_error_at: new Date() },
        )
        .execute();
    },
    async getRunExport(orgId: string, runId: string, sink: string): Promise<RunExportRow | undefined> {
      const row = await selectOrgRow(db, "run_metrics_exports", orgId, "run_id", runId)
        .select(["last_second as lastSecond", "totals", "summary_sent as summarySent"])
        .where("sink", "=", sink)
        .executeTakeFirst();
      return (
        row && {
          lastSecond: row.lastSecond === null ? null : Number(row.lastSecond),
          totals: row.totals as Record<string, number>,
          summarySent: row.summarySent,
        }
      );
    },
    /** Moves the run's watermark on after a successful push (never back: a slower, older push loses). */
    async advanceRunExport(
      orgId: string,
      runId: string,
      sink: string,
      progress: { lastSecond: number | null; totals: Record<string, unknown>; summarySent: boolean },
    ): Promise<void> {
      const values = {
        last_second: progress.lastSecond,
        totals: JSON.stringify(progress.totals),
        summary_sent: progress.summarySent,
        updated_at: new Date(),
      };
      await db
        .insertInto("run_metrics_exports")
        .values({ run_id: runId, org_id: orgId, sink, ...values })
        .onConflict((oc) =>
          oc
            .columns(["run_id", "sink"])
            .doUpdateSet(values)
            .where((eb) =>
              eb.or([
                eb("run_metrics_exports.last_second", "is", null),
                eb("run_metrics_exports.last_second", "<=", eb.ref("excluded.last_second")),
              ]),
            ),
        )
        .execute();
    },
  };
}
export type MetricsExportRepo = ReturnType<typeof createMetricsExportRepo>;
