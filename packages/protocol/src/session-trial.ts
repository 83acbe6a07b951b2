import { z } from "zod";
import { PlanSpec } from "./plan";
import { redactHex, redactSecrets } from "./plan-secrets";
import { SecretValues } from "./secrets";

/** Bytes of a message a trial shows (hex and text); the rest is only counted, so a trial frame stays small. */
export const TRIAL_PREVIEW_BYTES = 512;
/** Replies a trial shows per step; more are only counted (a chatty server cannot grow the frame). */
export const TRIAL_RECEIVED_PER_STEP = 5;
/** Characters of a captured value a trial shows. */
export const TRIAL_CAPTURE_CHARS = 256;
/** The agent stops a trial after this long, whatever its steps' timeouts say, and closes its socket. */
export const TRIAL_TIME_LIMIT_MS = 15_000;
/** The API gives up waiting for the agent's answer after this long (the agent's limit plus the trip both ways). */
export const TRIAL_WAIT_MS = 20_000;

/** The first TRIAL_PREVIEW_BYTES of a message, as hex and as text (control characters escaped), and its full length. */
export const BytesPreview = z.object({
  bytes: z.number().int().min(0),
  hex: z.string().max(TRIAL_PREVIEW_BYTES * 2),
  text: z.string().max(TRIAL_PREVIEW_BYTES * 4),
});
export type BytesPreview = z.infer<typeof BytesPreview>;

/** A reply a step read: `matched` when it was the reply its expect step waited for (others are skipped, as in a run). */
export const ReceivedPreview = BytesPreview.extend({ matched: z.boolean().optional() });
export type ReceivedPreview = z.infer<typeof ReceivedPreview>;

/** One session step as the trial ran it; `index` is its place in the plan's session (or the built-in login/join). */
export const TrialStep = z.object({
  index: z.number().int().min(0),
  kind: z.enum(["http", "send", "expect", "wait"]),
  ok: z.boolean(),
  ms: z.number().min(0),
  sent: BytesPreview.optional(),
  received: z.array(ReceivedPreview).max(TRIAL_RECEIVED_PER_STEP).optional(),
  /** Replies read beyond those shown. */
  receivedMore: z.number().int().min(0).optional(),
  captured: z.record(z.string(), z.string().max(TRIAL_CAPTURE_CHARS + 1)).optional(),
  /** Why the step failed, in the engine's words (errorsByKind): "session-timeout", "http-status", "closed"… */
  error: z.string().max(2000).optional(),
});
export type TrialStep = z.infer<typeof TrialStep>;

/** How the trial's one connection went; left out when it was never tried (an http step failed first). */
export const TrialConnect = z.object({
  ok: z.boolean(),
  ms: z.number().min(0),
  error: z.string().max(2000).optional(),
});
export type TrialConnect = z.infer<typeof TrialConnect>;

/**
 * server → agent: run one client (index 0) through the plan's connect and session steps now, beside any run. The
 * gateway adds `secrets`, the values of the organisation secrets the plan names (§14).
 */
export const SessionTrial = z.object({ trialId: z.string().uuid(), plan: PlanSpec, secrets: SecretValues.optional() });
export type SessionTrial = z.infer<typeof SessionTrial>;

/** What a trial found: the connect, each step reached in order, and `error` when it could not run or stopped early. */
export const TrialOutcome = z.object({
  connect: TrialConnect.optional(),
  steps: z.array(TrialStep).max(64),
  error: z.string().max(2000).optional(),
});
export type TrialOutcome = z.infer<typeof TrialOutcome>;

/** agent → server, answer to session-trial (at most one per trialId). */
export const SessionTrialResult = TrialOutcome.extend({ trialId: z.string().uuid() });
export type SessionTrialResult = z.infer<typeof SessionTrialResult>;

/** POST /api/plans/try: the plan as the form holds it (not saved), and the agent to try it from (any online one if left out). */
export const TryPlan = z.object({ spec: PlanSpec, agentId: z.string().uuid().optional() });
export type TryPlan = z.infer<typeof TryPlan>;

/** Answer of POST /api/plans/try: the agent that ran it, and what it found. */
export const TrialView = TrialOutcome.extend({ agentId: z.string().uuid(), agentHostname: z.string() });
export type TrialView = z.infer<typeof TrialView>;

/**
 * A trial's outcome with every secret value taken out (agent/PROTOCOL.md §14): texts show {{secrets.NAME}} where a
 * value went out or came back (as written, URL-encoded or JSON-escaped), hex previews show "*" bytes. The agent does
 * it before answering and the gateway again before the answer leaves it, so the trial view never holds a value.
 */
export function redactTrialOutcome<T extends TrialOutcome>(outcome: T, values: Readonly<Record<string, string>>): T {
  if (Object.keys(values).length === 0) return outcome;
  const text = (value: string, max: number) => redactSecrets(value, values).slice(0, max);
  const preview = <P extends BytesPreview>(p: P): P => ({
    ...p,
    text: text(p.text, TRIAL_PREVIEW_BYTES * 4),
    hex: redactHex(p.hex, values),
  });
  return {
    ...outcome,
    ...(outcome.error !== undefined ? { error: text(outcome.error, 2000) } : {}),
    ...(outcome.connect?.error !== undefined
      ? { connect: { ...outcome.connect, error: text(outcome.connect.error, 2000) } }
      : {}),
    steps: outcome.steps.map((step) => ({
      ...step,
      ...(step.sent ? { sent: preview(step.sent) } : {}),
      ...(step.received ? { received: step.received.map(preview) } : {}),
      ...(step.captured
        ? {
            captured: Object.fromEntries(
              Object.entries(step.captured).map(([name, value]) => [name, text(value, TRIAL_CAPTURE_CHARS + 1)]),
            ),
          }
        : {}),
      ...(step.error !== undefined ? { error: text(step.error, 2000) } : {}),
    })),
  };
}
