import { describe, expect, it } from "vitest";
import { EXIT_CODES_HELP, ExitCode, exitCodeForError, exitCodeForRun } from "./cli-exit-codes";
import {
  ApiError,
  InterruptedError,
  PlanFileError,
  ServerUnreachableError,
  UsageError,
  WaitTimeoutError,
} from "./errors";
import { BREACHED_VERDICT, INCOMPLETE_VERDICT, finishedRun } from "./testing/fixtures";

describe("exit codes", () => {
  it("maps a run's outcome: 0 passed or no SLOs, 99 breached, 5 failed or aborted", () => {
    const { spec } = finishedRun();
    const noSlos = { ...spec, slos: [] };
    expect(exitCodeForRun({ status: "finished", spec, verdict: finishedRun().verdict })).toBe(0);
    expect(
      exitCodeForRun({ status: "finished", spec, verdict: { passed: true, reasons: [], warnings: [], slos: [] } }),
    ).toBe(0);
    expect(exitCodeForRun({ status: "finished", spec: noSlos, verdict: null })).toBe(0);
    expect(exitCodeForRun({ status: "finished", spec, verdict: BREACHED_VERDICT })).toBe(99);
    expect(exitCodeForRun({ status: "failed", spec, verdict: null })).toBe(5);
    expect(exitCodeForRun({ status: "aborted", spec, verdict: BREACHED_VERDICT })).toBe(5);
  });

  it("never passes an incomplete run (load short of the plan, an SLO without data): 7", () => {
    expect(exitCodeForRun({ status: "finished", spec: finishedRun().spec, verdict: INCOMPLETE_VERDICT })).toBe(
      ExitCode.incomplete,
    );
    expect(ExitCode.incomplete).toBe(7);
  });

  it("does not pass a plan with SLOs whose run has no verdict", () => {
    expect(exitCodeForRun({ status: "finished", spec: finishedRun().spec, verdict: null })).toBe(ExitCode.failure);
  });

  it("maps API errors by their ErrorBody code", () => {
    expect(exitCodeForError(new ApiError(401, "unauthenticated", "bad token"))).toBe(ExitCode.unauthenticated);
    expect(exitCodeForError(new ApiError(403, "forbidden", "needs run.start"))).toBe(3);
    expect(
      exitCodeForError(
        new ApiError(403, "forbidden", "The plan breaks this organisation's limits", [
          { path: "load.clients", message: "exceeds" },
        ]),
      ),
    ).toBe(4);
    expect(exitCodeForError(new ApiError(409, "no_agent_online", "No agent is online"))).toBe(4);
    expect(exitCodeForError(new ApiError(400, "validation_failed", "Invalid plan"))).toBe(2);
    expect(exitCodeForError(new ApiError(503, "unavailable", "down"))).toBe(6);
    expect(exitCodeForError(new ApiError(502, undefined, "HTTP 502"))).toBe(6);
    expect(exitCodeForError(new ApiError(500, "internal", "oops"))).toBe(1);
  });

  it("maps the CLI's own errors", () => {
    expect(exitCodeForError(new UsageError("no token"))).toBe(2);
    expect(exitCodeForError(new PlanFileError("bad plan"))).toBe(2);
    expect(exitCodeForError(new ServerUnreachableError("refused"))).toBe(6);
    expect(exitCodeForError(new WaitTimeoutError("too long"))).toBe(6);
    expect(exitCodeForError(new InterruptedError("ctrl-c"))).toBe(130);
    expect(exitCodeForError(new Error("bug"))).toBe(1);
  });

  it("documents every exit code in --help", () => {
    for (const code of Object.values(ExitCode)) expect(EXIT_CODES_HELP).toMatch(new RegExp(`^  ${code} `, "m"));
  });
});
