import type { ErrorCode, FieldError } from "@throng/protocol/errors";

/** The API answered with an error; `message` is the server's ErrorBody message (plus its field errors). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** The ErrorBody code; undefined when the answer was not an ErrorBody (a proxy's HTML page, say). */
    readonly code: ErrorCode | undefined,
    message: string,
    readonly fields: FieldError[] = [],
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** No answer from the API: connection refused, DNS failure, or no answer in time. */
export class ServerUnreachableError extends Error {
  override name = "ServerUnreachableError";
}

/** `--wait` gave up: the run did not end within the plan's duration plus the margin (or `--timeout`). */
export class WaitTimeoutError extends Error {
  override name = "WaitTimeoutError";
}

/** A plan file that cannot be used (read and checked by the shared parser, as the agent's `run` does). */
export { PlanFileError } from "@throng/protocol/plan-file";

/** Bad or missing arguments (no server, no token, a malformed URL). */
export class UsageError extends Error {
  override name = "UsageError";
}

/** A script that cannot be read, bundled (esbuild's errors, with file and line) or stored (too large). */
export class ScriptBundleError extends Error {
  override name = "ScriptBundleError";
}

/** Ctrl-C / SIGINT while following a run. */
export class InterruptedError extends Error {
  override name = "InterruptedError";
}
