"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import type { RunView } from "@throng/protocol/run";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { compareWithBaseline } from "@throng/protocol/baseline-compare";
import { useApiQuery } from "../../hooks/use-api-query";
import { useApiMutation } from "../../hooks/use-api-mutation";
import { api } from "../../lib/shared/api";
import { baselineRows } from "../../lib/runs/baseline-table";
import { shortId } from "../../lib/shared/format";
import { queryKeys } from "../../lib/shared/query-keys";
import { can } from "../../lib/shared/settings-permissions";
import { DataTable, numeric } from "../ui/data-table";
import { useMe } from "../shell/session-gate";
import { ErrorAlert } from "../ui/error-alert";

/**
 * A finished run against its plan's pinned baseline (the table `throng run --baseline pinned` gates on), and the
 * buttons that pin this run as the baseline or unpin it. Nothing for a run that did not finish.
 */
export function RunBaseline({ run, points }: { run: RunView; points: readonly SeriesPoint[] }) {
  const { role } = useMe();
  const plan = useApiQuery(queryKeys.plan(run.planId), (signal) => api.getPlan(run.planId, signal));
  const baselineId = plan.data?.baselineRunId ?? null;
  const compared = baselineId !== null && baselineId !== run.id && run.status === "finished";
  const baseline = useApiQuery(compared ? queryKeys.baselineRun(baselineId) : ["no-baseline"], async (signal) => {
    if (!compared) return null;
    const [baselineRun, series] = await Promise.all([
      api.getRun(baselineId, signal),
      api.getSeries(baselineId, signal),
    ]);
    return { ...baselineRun, series: series.points };
  });
  const invalidates = [queryKeys.plan(run.planId), queryKeys.planLists];
  const pin = useApiMutation(() => api.pinBaseline(run.planId, run.id), invalidates);
  const unpin = useApiMutation(() => api.unpinBaseline(run.planId), invalidates);
  if (run.status !== "finished" || !plan.data) return null;
  const mayPin = can(role, "plan.write");
  const failure = pin.failure ?? unpin.failure;
  const pinButton = (
    <BaselineButton change={pin} testId="pin-baseline">
      Pin as baseline
    </BaselineButton>
  );

  return (
    <section className="panel" aria-labelledby="baseline-title" data-testid="run-baseline">
      <h2 id="baseline-title">Against the baseline</h2>
      {baselineId === run.id ? (
        <p data-testid="run-is-baseline">
          This run is the plan&apos;s baseline: its later runs are compared with it.{" "}
          {mayPin && (
            <BaselineButton change={unpin} testId="unpin-baseline">
              Unpin
            </BaselineButton>
          )}
        </p>
      ) : baselineId === null ? (
        <p className="muted" data-testid="no-baseline">
          The plan has no baseline: pin a finished run to compare its later runs with it. {mayPin && pinButton}
        </p>
      ) : (
        <>
          <p className="muted small">
            Against run <Link href={`/runs/${baselineId}`}>{shortId(baselineId)}</Link>, the plan&apos;s pinned
            baseline. A change inside either run&apos;s own second-to-second spread is within noise.{" "}
            {mayPin && pinButton}
          </p>
          <ErrorAlert error={baseline.error} />
          {baseline.data && (
            <DataTable
              caption="This run against the plan's baseline"
              columns={["Metric", ...numeric("Baseline", "This run", "Change"), "Status"]}
              testId="baseline-table"
            >
              {baselineRows(
                compareWithBaseline(
                  { id: run.id, spec: run.spec, summary: run.summary, series: points },
                  {
                    id: baselineId,
                    spec: baseline.data.spec,
                    summary: baseline.data.summary,
                    series: baseline.data.series,
                  },
                ),
              ).map((row) => (
                <tr key={row.metric} data-testid="baseline-row" data-metric={row.metric} data-status={row.status}>
                  <th scope="row">{row.label}</th>
                  <td className="num">{row.baseline}</td>
                  <td className="num">{row.value}</td>
                  <td className="num">{row.change}</td>
                  <td>{row.verdict}</td>
                </tr>
              ))}
            </DataTable>
          )}
        </>
      )}
      {failure && (
        <p className="inline-error" role="alert">
          {failure}
        </p>
      )}
    </section>
  );
}

/** Pins or unpins: sends its change once, disabled while it is out. */
function BaselineButton({
  change,
  testId,
  children,
}: {
  change: { isPending: boolean; mutate: (variables: undefined) => void };
  testId: string;
  children: ReactNode;
}) {
  return (
    <button
      className="button"
      type="button"
      disabled={change.isPending}
      onClick={() => change.mutate(undefined)}
      data-testid={testId}
    >
      {children}
    </button>
  );
}

/** The plan page's line: which run is the baseline (with Unpin), or how to pin one. */
export function PlanBaseline({ planId, baselineRunId }: { planId: string; baselineRunId: string | null }) {
  const { role } = useMe();
  const unpin = useApiMutation(() => api.unpinBaseline(planId), [queryKeys.plan(planId), queryKeys.planLists]);
  return (
    <section className="panel" aria-labelledby="plan-baseline-title" data-testid="plan-baseline">
      <h2 id="plan-baseline-title">Baseline</h2>
      {baselineRunId ? (
        <p>
          Run{" "}
          <Link href={`/runs/${baselineRunId}`} data-testid="plan-baseline-run">
            {shortId(baselineRunId)}
          </Link>{" "}
          is the baseline: each later run&apos;s page compares itself with it, and{" "}
          <code>throng run --plan-name … --baseline pinned</code> holds CI runs to it.{" "}
          {can(role, "plan.write") && (
            <BaselineButton change={unpin} testId="plan-unpin-baseline">
              Unpin
            </BaselineButton>
          )}
        </p>
      ) : (
        <p className="muted">No baseline pinned: open a finished run of this plan and press Pin as baseline.</p>
      )}
      {unpin.failure && (
        <p className="inline-error" role="alert">
          {unpin.failure}
        </p>
      )}
    </section>
  );
}
