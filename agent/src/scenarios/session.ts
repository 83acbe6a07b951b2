import type { SessionStep } from "@throng/protocol/plan";
import type { ScenarioMetrics } from "../metrics/snapshot-builder";
import type { TransportConnection } from "../transports/transport";
import { compileHttpStep, type CompiledHttpStep } from "./http-step";
import { prepareTemplate, type PreparedTemplate, type SessionVars } from "@throng/wire/message-template";
import { compileCapture, compileReplyRule, type CaptureReader, type ReplyMatcher } from "./reply-rule";
import { TEXT_WIRE, type WireFormat } from "@throng/wire/wire-format";

/** An expect step's wait when the plan gives none. */
export const DEFAULT_EXPECT_TIMEOUT_MS = 10_000;

/** Why a session failed: its errorsByKind key. */
export type SessionFailure = "session-timeout" | "session-rejected" | "session-capture";

type CompiledStep =
  | { kind: "send"; template: PreparedTemplate }
  | {
      kind: "expect";
      reply: ReplyMatcher;
      failWhen?: ReplyMatcher;
      timeoutMs: number;
      captures: { name: string; read: CaptureReader; missing: string }[];
      words: ExpectWords;
    }
  | { kind: "wait"; ms: number };

/** An expect step's failures in words, for their error samples: written once per step, never per failure. */
interface ExpectWords {
  rejected: string;
  timedOut: string;
}

/** A plan's session steps, parsed once per scenario (templates, rules and regular expressions). */
export interface CompiledSession {
  /** The http steps, run before the client's socket opens (http-step.ts); the schema keeps them first. */
  readonly http: readonly CompiledHttpStep[];
  /** The steps over the client's connection. */
  readonly steps: readonly CompiledStep[];
}

/** Compiles the steps; `defaultTimeoutMs` is an expect step's wait when it gives none (login-storm passes its timeoutMs). */
export function compileSession(
  steps: readonly SessionStep[],
  options: { defaultTimeoutMs?: number; wire?: WireFormat } = {},
): CompiledSession {
  const wire = options.wire ?? TEXT_WIRE;
  const defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_EXPECT_TIMEOUT_MS;
  return {
    http: steps.flatMap((step) => (step.kind === "http" ? [compileHttpStep(step, defaultTimeoutMs, wire)] : [])),
    steps: steps.flatMap((step, index): CompiledStep[] => {
      switch (step.kind) {
        case "http":
          return [];
        case "send":
          return [{ kind: "send", template: prepareTemplate(step.message, wire) }];
        case "wait":
          return [{ kind: "wait", ms: step.ms }];
      }
      // What is left is an expect step.
      const timeoutMs = step.timeoutMs ?? defaultTimeoutMs;
      const at = `session step ${index} (expect)`;
      return [
        {
          kind: "expect",
          reply: compileReplyRule(step.reply, wire.decodeReply),
          ...(step.failWhen ? { failWhen: compileReplyRule(step.failWhen, wire.decodeReply) } : {}),
          timeoutMs,
          captures: (step.capture ?? []).map((capture) => ({
            name: capture.name,
            read: compileCapture(capture, wire.decodeReply),
            missing: `${at}: capture "${capture.name}" found nothing in the reply`,
          })),
          words: {
            rejected: `${at}: the reply matched failWhen`,
            timedOut: `${at}: no reply matched within ${timeoutMs} ms`,
          },
        },
      ];
    }),
  };
}

/** A session that ran to its last step: the client's variables, and its first and last step's times (performance.now()). */
export interface SessionDone {
  vars: SessionVars;
  startedAt: number;
  endedAt: number;
}

/**
 * Told what each step does, for a session trial (session-trial.ts). Runs leave it out and pay one check per step,
 * never per message of their traffic. Steps begin in the plan's order (http steps first, as the schema keeps them).
 */
export interface StepObserver {
  /** The next step begins; the one before it (if any) ended well. */
  step(): void;
  /** What the step sent (a message, or an http step's request). */
  sent(data: string | Uint8Array): void;
  /** A reply the step read; `matched` when it is the one its expect step waited for. */
  received(data: Buffer, matched: boolean): void;
  captured(name: string, value: string | number): void;
}

export interface SessionEvents {
  done(result: SessionDone): void;
  /** `message` says which step and why; `bytes` is the reply that failed it, if one did. */
  failed(cause: SessionFailure, message?: string, bytes?: Uint8Array): void;
}

/**
 * One client's run through its session: sends, waits for the replies its expect steps name (skipping any other
 * message), captures variables. Ends once, with done or failed; a connection that refuses a send (it is closing)
 * ends it with neither, and the close is counted where it happens.
 */
export class SessionRun {
  private at = -1;
  private timer: NodeJS.Timeout | undefined;
  private sent = 0;
  private vars: Record<string, string | number> = {};
  private startedAt = 0;
  // When the step in progress began (performance.now()): its time, once it ends well, goes to its histogram.
  private stepStartedAt = 0.5;
  private over = false;

  constructor(
    private readonly session: CompiledSession,
    private readonly connection: TransportConnection,
    private readonly fields: { client: number; room?: number },
    private readonly metrics: ScenarioMetrics,
    private readonly events: SessionEvents,
    private readonly observer?: StepObserver,
  ) {}

  /** `before`: what the client's http steps captured, and when they began (the session's time counts from there). */
  start(before?: { vars: SessionVars; startedAt: number }): void {
    this.startedAt = before?.startedAt ?? performance.now();
    if (before) this.vars = { ...before.vars };
    this.next(performance.now());
  }

  /** The step in progress (or the last one begun) as the plan numbers it: its index in `session`, http steps first. */
  get stepIndex(): number {
    return this.session.http.length + Math.max(0, this.at);
  }

  /** Whether the session waits for a reply now (a message it sent is unanswered, for inFlightAtEnd). */
  get awaitingReply(): boolean {
    return !this.over && this.session.steps[this.at]?.kind === "expect";
  }

  /** A message that arrived during the session: it goes to the expect step waiting, if any, else it is skipped. */
  onMessage(data: Buffer, receivedAt: number): void {
    const step = this.session.steps[this.at];
    if (this.over || step?.kind !== "expect") return;
    const rejected = step.failWhen?.(data) ?? false;
    const matched = !rejected && step.reply(data);
    this.observer?.received(data, matched);
    if (rejected) {
      this.fail("session-rejected", step.words.rejected, data);
      return;
    }
    if (!matched) return;
    for (const { name, read, missing } of step.captures) {
      const value = read(data);
      if (value === undefined) {
        this.fail("session-capture", missing, data);
        return;
      }
      this.vars[name] = value;
      this.observer?.captured(name, value);
    }
    clearTimeout(this.timer);
    this.stepEnded(receivedAt);
    this.next(receivedAt);
  }

  /** Ends the session with no outcome (the client was stopped or its connection ended). */
  cancel(): void {
    this.over = true;
    clearTimeout(this.timer);
  }

  /** The step in progress ended well at `at`: its time since it began. */
  private stepEnded(at: number): void {
    this.metrics.sessionStepMicros(this.stepIndex, (at - this.stepStartedAt) * 1000);
  }

  private next(now: number): void {
    for (this.at += 1; this.at < this.session.steps.length; this.at += 1) {
      const step = this.session.steps[this.at]!;
      this.stepStartedAt = now;
      this.observer?.step();
      if (step.kind === "expect") {
        this.timer = setTimeout(() => this.fail("session-timeout", step.words.timedOut), step.timeoutMs);
        return;
      }
      if (step.kind === "wait") {
        this.timer = setTimeout(() => {
          const at = performance.now();
          this.stepEnded(at);
          this.next(at);
        }, step.ms);
        return;
      }
      const message = step.template.bind(this.vars)({
        seq: this.sent,
        sentAtUs: Math.round((performance.timeOrigin + performance.now()) * 1000),
        ...this.fields,
      });
      if (!this.connection.send(message)) {
        this.cancel();
        return;
      }
      this.observer?.sent(message);
      this.sent += 1;
      this.metrics.messageSent(message.length);
      now = performance.now();
      this.stepEnded(now);
    }
    this.over = true;
    this.events.done({ vars: this.vars, startedAt: this.startedAt, endedAt: now });
  }

  private fail(cause: SessionFailure, message: string, bytes?: Uint8Array): void {
    if (this.over) return;
    this.cancel();
    this.metrics.sessionStepFailed(this.stepIndex, cause);
    this.events.failed(cause, message, bytes);
  }
}
