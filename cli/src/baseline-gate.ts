// `throng run --baseline pinned|<run id> --max-regression p99=10%,...`: the run held to an earlier run of the plan.
// The comparison is protocol's (baseline-compare.ts), the same the report reads; this file fetches the two runs,
// and turns what it found into the exit code (run-report.ts says it).
import {
  compareWithBaseline,
  type BaselineComparison,
  type ComparedRun,
  type MetricComparison,
} from "@throng/protocol/baseline-compare";
import type { RegressionAllowance } from "@throng/protocol/regression-allowance";
import type { PlanView } from "@throng/protocol/api";
import type { RunView } from "@throng/protocol/run";
import type { ApiClient } from "./api-client";
import { ExitCode } from "./cli-exit-codes";
import { ApiError, UsageError } from "./errors";

/** --baseline: the plan's pinned run, or a run named by its id. */
export type BaselineChoice = { pinned: true } | { runId: string };

/** What `--json` carries of the comparison: every metric, and those that regressed on their own for a CI step to read. */
export type BaselineResult = BaselineComparison & { regressions: MetricComparison[] };

/**
 * The baseline run, read before the run starts so a wrong choice costs no load: the plan's pinned run (none pinned
 * is a usage error that says how to pin one), or the run given, which must be finished.
 */
export async function fetchBaseline(api: ApiClient, plan: PlanView, choice: BaselineChoice): Promise<ComparedRun> {
  const runId = "pinned" in choice ? plan.baselineRunId : choice.runId;
  if (!runId) {
    throw new UsageError(
      `--baseline pinned: the plan "${plan.name}" has no pinned baseline; pin one of its finished runs (its page in the dashboard, or PUT /api/plans/${plan.id}/baseline) or pass --baseline <run id>`,
    );
  }
  let run: RunView;
  try {
    run = await api.getRun(runId);
  } catch (error) {
    if (error instanceof ApiError && error.code === "not_found")
      throw new UsageError(`--baseline: no run ${runId} in this organisation`);
    throw error;
  }
  if (run.status !== "finished" || !run.summary)
    throw new UsageError(
      `--baseline: run ${runId} is ${run.status}, not finished: only a finished run can be a baseline`,
    );
  return { id: run.id, spec: run.spec, summary: run.summary, series: (await api.getSeries(run.id)).points };
}

/** The finished run against its baseline; undefined for a run that did not finish (its exit code says so already). */
export async function judgeAgainstBaseline(
  api: ApiClient,
  run: RunView,
  baseline: ComparedRun,
  allowances: readonly RegressionAllowance[],
): Promise<BaselineResult | undefined> {
  if (run.status !== "finished") return undefined;
  const series = (await api.getSeries(run.id)).points;
  const comparison = compareWithBaseline(
    { id: run.id, spec: run.spec, summary: run.summary, series },
    baseline,
    allowances,
  );
  return { ...comparison, regressions: comparison.metrics.filter((metric) => metric.status === "regressed") };
}

/**
 * The run's exit code held to its baseline: a regression makes a pass or an incomplete run 99 (the run is measurably
 * worse); a metric held to an allowance that either run did not measure makes a pass 7 (never a silent pass); a run
 * that failed, was aborted or breached an SLO keeps its own code.
 */
export function exitCodeWithBaseline(code: ExitCode, result: BaselineResult | undefined): ExitCode {
  if (!result || (code !== ExitCode.passed && code !== ExitCode.incomplete)) return code;
  if (result.outcome === "regressed") return ExitCode.sloBreached;
  if (result.outcome === "incomplete") return ExitCode.incomplete;
  return code;
}
