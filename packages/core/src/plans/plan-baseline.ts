import { ThrongError } from "@throng/protocol/errors";

/** What pinning needs to know of the run offered as a plan's baseline. */
export interface BaselineCandidate {
  id: string;
  planId: string;
  planName: string;
  status: string;
}

/**
 * Why `run` cannot be plan `planId`'s baseline, as the error the API answers; null when it can. A baseline is one of
 * the plan's own runs (another plan's load says nothing about this one's) that finished: an aborted or failed run,
 * or one still going, has no whole-run figures to hold later runs to.
 */
export function baselineRefusal(planId: string, runId: string, run: BaselineCandidate | undefined): ThrongError | null {
  const field = [{ path: "runId", message: "give a finished run of this plan" }];
  if (!run) return new ThrongError("not_found", `No run ${runId} in this organisation`, field);
  if (run.planId !== planId) {
    return new ThrongError(
      "conflict",
      `Run ${runId} is a run of plan "${run.planName}", not of this plan: a plan's baseline is one of its own finished runs`,
      field,
    );
  }
  if (run.status !== "finished") {
    return new ThrongError(
      "conflict",
      `Run ${runId} is ${run.status}, not finished: only a finished run can be the baseline later runs are held to`,
      field,
    );
  }
  return null;
}
