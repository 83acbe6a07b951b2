import type { RunView } from "@throng/protocol/run";
import type { RunNotesPatch } from "@throng/protocol/run-notes";
import type { RegressionAllowance } from "@throng/protocol/regression-allowance";
import { exitCodeWithBaseline, fetchBaseline, judgeAgainstBaseline, type BaselineChoice } from "./baseline-gate";
import { createApiClient, type ApiClient } from "./api-client";
import { ExitCode, exitCodeForRun } from "./cli-exit-codes";
import { InterruptedError, WaitTimeoutError } from "./errors";
import { readPlanFile } from "@throng/wire/plan-reader";
import { createProgressPrinter } from "./progress";
import { writeResultFiles } from "./result-files";
import { defaultTimeoutSec, followRun } from "./run-follow";
import { reportText } from "./run-report";
import { withUploadedScript } from "./script-command";

export interface RunArgs {
  planPath: string;
  server: string;
  token: string;
  wait: boolean;
  /** Seconds to wait for the run to end; default: the plan's duration + 120 s. */
  timeoutSec?: number;
  json?: string;
  junit?: string;
  /** The dashboard's base URL, for the link printed when the run starts. */
  dashboard?: string;
  /** Save the plan as a new version of the plan with this name instead of a new plan (--plan-name). */
  planName?: string;
  /** --note and --tag: set on the run as soon as it is started. */
  notes?: RunNotesPatch;
  /** --baseline: hold the run to the plan's pinned run or to a given run; --max-regression: how much worse it may be. */
  baseline?: BaselineChoice;
  allowances?: RegressionAllowance[];
}

export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown };
  /** Fired by Ctrl-C / SIGINT: stop waiting and abort the run. */
  signal: AbortSignal;
  fetch?: typeof globalThis.fetch;
  pollMs?: number;
}

/** Aborts the run on the way out; an abort that fails is reported, not thrown, so the exit code stays meaningful. */
async function abortRun(api: ApiClient, runId: string, io: CliIo): Promise<RunView | undefined> {
  try {
    const run = await api.abortRun(runId);
    io.stderr.write(`aborted run ${runId}\n`);
    return run;
  } catch (error) {
    io.stderr.write(`could not abort run ${runId}: ${(error as Error).message}; abort it in the dashboard\n`);
    return undefined;
  }
}

/**
 * `throng run`: saves the plan (a new one, or with --plan-name a new version of that plan), starts a run and, with --wait, follows it to its verdict and writes the
 * result files. Returns the exit code; errors from the API are thrown for the caller to map.
 */
export async function runCommand(args: RunArgs, io: CliIo): Promise<ExitCode> {
  const api = createApiClient({ server: args.server, token: args.token, ...(io.fetch ? { fetch: io.fetch } : {}) });
  const spec = await withUploadedScript(await readPlanFile(args.planPath), args.planPath, api, io);
  const plan = args.planName ? await api.savePlanByName(args.planName, spec) : await api.createPlan(spec);
  // Read before the start, so a baseline that cannot be used costs no load.
  const baseline = args.baseline ? await fetchBaseline(api, plan, args.baseline) : undefined;
  if (io.signal.aborted) throw new InterruptedError("interrupted before the run started");
  const started = await api.startRun(plan.id);
  const link = args.dashboard
    ? `${args.dashboard.replace(/\/+$/, "")}/runs/${started.id}`
    : `/runs/${started.id} in the Throng dashboard`;
  io.stdout.write(`run ${started.id} ${started.status} (plan "${plan.name}")\n  follow it at ${link}\n`);
  // Set right after the start (which takes no body), once its id is printed: a refusal is an error like any other.
  if (args.notes) await api.annotateRun(started.id, args.notes);
  if (!args.wait) return ExitCode.passed;

  const timeoutSec = args.timeoutSec ?? defaultTimeoutSec(spec);
  const printer = createProgressPrinter(io.stdout, io.stdout.isTTY === true);
  let run: RunView;
  try {
    run = await followRun({
      api,
      runId: started.id,
      timeoutMs: timeoutSec * 1000,
      signal: io.signal,
      ...(io.pollMs !== undefined ? { pollMs: io.pollMs } : {}),
      onProgress: (progress) => printer.update(progress),
      onRetry: (error) => {
        printer.done();
        io.stderr.write(`lost contact with the API, retrying: ${error.message}\n`);
      },
      onRecovered: () => io.stderr.write("reconnected to the API\n"),
    });
  } catch (error) {
    printer.done();
    if (!(error instanceof InterruptedError || error instanceof WaitTimeoutError)) throw error;
    // Nobody is left to watch the load, so stop it rather than leave it running against the target.
    io.stderr.write(
      error instanceof InterruptedError ? "interrupted: aborting the run\n" : `${error.message}: aborting the run\n`,
    );
    const aborted = await abortRun(api, started.id, io);
    if (aborted) await writeResultFiles(aborted, args);
    return error instanceof InterruptedError ? ExitCode.interrupted : ExitCode.unreachable;
  }
  printer.done();
  const held = baseline ? await judgeAgainstBaseline(api, run, baseline, args.allowances ?? []) : undefined;
  io.stdout.write(`${reportText(run, held)}\n`);
  await writeResultFiles(run, args, held);
  return exitCodeWithBaseline(exitCodeForRun(run), held);
}
