import {
  ApiError,
  InterruptedError,
  PlanFileError,
  ScriptBundleError,
  ServerUnreachableError,
  UsageError,
  WaitTimeoutError,
} from "./errors";
import type { VerdictOutcome } from "@throng/protocol/report";
import type { RunView } from "@throng/protocol/run";

/** Process exit codes of `throng`; listed in `throng --help` and cli/README.md. CI scripts depend on them. */
export const ExitCode = {
  /** The run finished and every SLO passed (or the plan has none); without --wait: the run started. */
  passed: 0,
  /** Anything else: a bug, an unwritable output file, an unexpected server answer. */
  failure: 1,
  /** Bad arguments, a plan file that is not valid YAML/JSON or not a valid plan, or a script that does not bundle. */
  usage: 2,
  /** The server refused the token (401) or its scope (403). */
  unauthenticated: 3,
  /** No agent online to run the plan, or the organisation's limits refused it. */
  noCapacity: 4,
  /** The run failed or was aborted. */
  runFailed: 5,
  /** The server could not be reached, or the run did not end in time. */
  unreachable: 6,
  /**
   * The run finished but cannot pass: its load did not run as planned (an agent lost, short of its send schedule,
   * clients dropped, fewer seconds than planned), an SLO had no data, or a capacity search has no valid estimate.
   */
  incomplete: 7,
  /**
   * An SLO was breached, or the run is worse than its baseline by more than --max-regression. Far from the small
   * codes so a CI rule can tell "slower" from "broken".
   */
  sloBreached: 99,
  /** Ctrl-C / SIGINT while waiting (the run was aborted); 128 + SIGINT by shell convention. */
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export const EXIT_CODES_HELP = `
Exit codes:
  0    passed: the load ran as planned for its planned time and every SLO was met
       over enough data (a capacity search: a valid estimate, at least minClients);
       without --wait: the run was started
  99   an SLO was breached (a capacity search: the estimate is below minClients),
       or with --baseline a metric is worse than the baseline by more than
       --max-regression allows (outside the runs' own noise)
  7    incomplete, never a pass: the load did not run as planned (an agent lost,
       short of its send schedule, clients dropped), an SLO had no data, a
       capacity search found no valid estimate, or a metric --max-regression
       names was not measured by both runs
  2    usage error, the plan file is invalid, or its script does not bundle
  3    authentication refused (401/403): check --token / THRONG_TOKEN and its scope
  4    no agent online, or the organisation's limits refused the plan
  5    the run failed or was aborted
  6    the server could not be reached, or the run did not end within --timeout
  130  interrupted (Ctrl-C): the run was aborted
  1    anything else`;

/** The exit code for an error thrown while starting or following a run. */
export function exitCodeForError(error: unknown): ExitCode {
  if (error instanceof InterruptedError) return ExitCode.interrupted;
  if (error instanceof UsageError || error instanceof PlanFileError || error instanceof ScriptBundleError)
    return ExitCode.usage;
  if (error instanceof ServerUnreachableError || error instanceof WaitTimeoutError) return ExitCode.unreachable;
  if (!(error instanceof ApiError)) return ExitCode.failure;
  switch (error.code) {
    case "unauthenticated":
      return ExitCode.unauthenticated;
    case "forbidden":
      // The limits check names the plan fields it refused; a token's missing permission names none.
      return error.fields.length > 0 ? ExitCode.noCapacity : ExitCode.unauthenticated;
    case "no_agent_online":
      return ExitCode.noCapacity;
    case "validation_failed":
      return ExitCode.usage;
    case "unavailable":
      return ExitCode.unreachable;
    default:
      if (error.status === 401 || error.status === 403) return ExitCode.unauthenticated;
      // A proxy in front of an API that is down answers 502/503/504 without an ErrorBody.
      if (error.status >= 502 && error.status <= 504) return ExitCode.unreachable;
      return ExitCode.failure;
  }
}

/** A judged run's exit code by its verdict's outcome; one a new outcome lacks does not compile. */
const exitCodeOfOutcome: Record<VerdictOutcome, ExitCode> = {
  passed: ExitCode.passed,
  breached: ExitCode.sloBreached,
  incomplete: ExitCode.incomplete,
  aborted: ExitCode.runFailed,
  failed: ExitCode.runFailed,
};

/** The exit code for a run that ended: its verdict's outcome (run-verdict.ts), never better than its status. */
export function exitCodeForRun(run: Pick<RunView, "status" | "verdict" | "spec">): ExitCode {
  if (run.status !== "finished") return ExitCode.runFailed;
  // A plan with SLOs but no recorded verdict must not pass a CI gate silently.
  if (!run.verdict) return run.spec.slos?.length ? ExitCode.failure : ExitCode.passed;
  // A verdict stored before outcomes existed: its SLOs alone.
  if (run.verdict.outcome === undefined) return run.verdict.passed ? ExitCode.passed : ExitCode.sloBreached;
  return exitCodeOfOutcome[run.verdict.outcome];
}
