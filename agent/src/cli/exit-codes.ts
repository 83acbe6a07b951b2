import { AgentCloseCode } from "@throng/protocol/agent";
import { ThrongError, type ErrorCode } from "@throng/protocol/errors";

/** Process exit codes of `throng-agent`; listed in `--help` and agent/PROTOCOL.md §8. */
export const ExitCode = {
  ok: 0,
  /** Anything unexpected: a bug, an unwritable file, a port already in use. */
  failure: 1,
  /** Bad arguments or configuration: fix the command line. */
  usage: 2,
  /** The server rejected the token or credential (close 4003). */
  unauthenticated: 3,
  /** The server does not speak this agent's protocol version (close 4006). */
  versionUnsupported: 4,
  /** `run`: the plan ran but at least one of its SLOs was breached (a capacity search: the estimate is below minClients). */
  sloFailed: 5,
  /**
   * `run`: not a pass, though nothing was breached: the load did not run as planned (short of its send schedule,
   * clients dropped, fewer seconds than planned), an SLO had no data, or a capacity search found no valid estimate.
   */
  incomplete: 6,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

const byErrorCode: Record<ErrorCode, ExitCode> = {
  validation_failed: ExitCode.usage,
  unauthenticated: ExitCode.unauthenticated,
  forbidden: ExitCode.unauthenticated,
  not_found: ExitCode.failure,
  method_not_allowed: ExitCode.failure,
  conflict: ExitCode.failure,
  no_agent_online: ExitCode.failure,
  unsupported_version: ExitCode.versionUnsupported,
  rate_limited: ExitCode.failure,
  unavailable: ExitCode.failure,
  timeout: ExitCode.failure,
  internal: ExitCode.failure,
};

/** The exit code for an error thrown by a command. */
export function exitCodeForError(error: unknown): ExitCode {
  return error instanceof ThrongError ? byErrorCode[error.code] : ExitCode.failure;
}

/** The exit code for a close code after which the agent gives up instead of reconnecting. */
export function exitCodeForClose(closeCode: number): ExitCode {
  if (closeCode === AgentCloseCode.unauthenticated) return ExitCode.unauthenticated;
  if (closeCode === AgentCloseCode.versionUnsupported) return ExitCode.versionUnsupported;
  return ExitCode.failure;
}
