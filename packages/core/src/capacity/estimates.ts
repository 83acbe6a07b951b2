import { ThrongError } from "@throng/protocol/errors";
import { CapacityEstimate, type SaveEstimate, type EstimateView, type TargetView } from "@throng/protocol/report";
import type { Repos } from "@throng/db/repos";
import type { EstimateRow } from "@throng/db/repos/reports";
import { authorize, type Actor } from "../orgs/permissions";

/** Each estimate with its change against the previous one of the same target ("−12% since build 1.3"). */
export function withChanges(rows: readonly EstimateRow[]): EstimateView[] {
  return rows.map((row, i) => {
    const previous = rows[i - 1];
    const changePercent =
      previous?.clients && row.clients !== null
        ? Math.round(((row.clients - previous.clients) / previous.clients) * 1000) / 10
        : null;
    const sign = changePercent === null ? "" : changePercent > 0 ? "+" : changePercent < 0 ? "−" : "±";
    return {
      id: row.id,
      targetName: row.targetName,
      build: row.build,
      runId: row.runId,
      clients: row.clients,
      valid: row.valid,
      sentence: row.sentence,
      createdAt: row.createdAt.toISOString(),
      changePercent,
      change: changePercent === null ? null : `${sign}${Math.abs(changePercent)}% since build ${previous!.build}`,
    };
  });
}

/** Capacity estimates kept per target and build, and the history a target page charts. */
export function createEstimateService(deps: { repos: Repos }) {
  const { repos } = deps;
  return {
    async save(actor: Actor, runId: string, body: SaveEstimate): Promise<EstimateView> {
      authorize(actor, "run.start");
      const run = await repos.runs.get(actor.orgId, runId);
      if (!run) throw new ThrongError("not_found", `No run ${runId} in this organisation`);
      if (!run.capacity)
        throw new ThrongError("conflict", "This run has no capacity estimate: only a finished step-up run has one");
      const capacity = CapacityEstimate.parse(run.capacity);
      const id = crypto.randomUUID();
      await repos.reports.insertEstimate(actor.orgId, {
        id,
        targetName: body.targetName,
        build: body.build,
        runId,
        clients: capacity.clients,
        valid: capacity.valid,
        sentence: capacity.sentence,
      });
      return withChanges(await repos.reports.listEstimates(actor.orgId, body.targetName)).find((e) => e.id === id)!;
    },
    async history(actor: Actor, targetName: string): Promise<EstimateView[]> {
      authorize(actor, "run.read");
      return withChanges(await repos.reports.listEstimates(actor.orgId, targetName));
    },
    async targets(actor: Actor): Promise<TargetView[]> {
      authorize(actor, "run.read");
      const byTarget = new Map<string, EstimateRow[]>();
      for (const row of await repos.reports.listEstimates(actor.orgId))
        byTarget.set(row.targetName, [...(byTarget.get(row.targetName) ?? []), row]);
      return [...byTarget.entries()].map(([name, rows]) => ({
        name,
        estimates: rows.length,
        latest: withChanges(rows).at(-1)!,
      }));
    },
  };
}
export type EstimateService = ReturnType<typeof createEstimateService>;
