import type { SessionStep } from "@throng/protocol/plan";
import {
  TRIAL_CAPTURE_CHARS,
  TRIAL_PREVIEW_BYTES,
  TRIAL_RECEIVED_PER_STEP,
  type BytesPreview,
  type TrialOutcome,
  type TrialStep,
} from "@throng/protocol/session-trial";
import type { StepObserver } from "../scenarios/session";

/** Control characters, shown escaped so a reply's \r\n and NULs are visible and the text stays one line. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: it finds control characters in order to escape them.
const CONTROL = /[\u0000-\u001f\u007f\\]/g;
const ESCAPES: Record<string, string> = { "\r": "\\r", "\n": "\\n", "\t": "\\t", "\\": "\\\\" };

/** The first TRIAL_PREVIEW_BYTES of a message as hex and as text, with its full length. */
export function bytesPreview(data: string | Uint8Array): BytesPreview {
  const bytes =
    typeof data === "string" ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const head = bytes.subarray(0, TRIAL_PREVIEW_BYTES);
  const text = head
    .toString("utf8")
    .replace(CONTROL, (c) => ESCAPES[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
  return { bytes: bytes.length, hex: head.toString("hex"), text };
}

/**
 * Writes down one trial client's connect and steps as the engine reports them (StepObserver and the connect events):
 * each step's time runs from its start to the next step's, the connect's, or the end.
 */
export function createTrialRecorder(steps: readonly SessionStep[]) {
  const trial: TrialOutcome = { steps: [] };
  let open: { step: TrialStep; startedAt: number } | undefined;
  let mark = performance.now();
  let over = false;

  const close = (error?: string) => {
    if (!open) return;
    const now = performance.now();
    open.step.ms = round(now - open.startedAt);
    if (error !== undefined) Object.assign(open.step, { ok: false, error });
    open = undefined;
    mark = now;
  };

  const observer: StepObserver = {
    step() {
      if (over) return;
      close();
      const index = trial.steps.length;
      const step: TrialStep = { index, kind: steps[index]?.kind ?? "send", ok: true, ms: 0 };
      trial.steps.push(step);
      open = { step, startedAt: performance.now() };
    },
    sent(data) {
      if (open && !over) open.step.sent = bytesPreview(data);
    },
    received(data, matched) {
      if (!open || over) return;
      open.step.received ??= [];
      const received = open.step.received;
      if (received.length < TRIAL_RECEIVED_PER_STEP) received.push({ ...bytesPreview(data), matched });
      else open.step.receivedMore = (open.step.receivedMore ?? 0) + 1;
    },
    captured(name, value) {
      const text = String(value);
      if (!open || over) return;
      open.step.captured ??= {};
      open.step.captured[name] = text.length > TRIAL_CAPTURE_CHARS ? `${text.slice(0, TRIAL_CAPTURE_CHARS)}…` : text;
    },
  };

  return {
    observer,
    /** The socket starts to open: the http steps before it are over. */
    connecting() {
      if (over) return;
      close();
      mark = performance.now();
    },
    connected(connectMicros: number | undefined) {
      if (over) return;
      trial.connect = {
        ok: true,
        ms: round(connectMicros !== undefined ? connectMicros / 1000 : performance.now() - mark),
      };
      mark = performance.now();
    },
    connectFailed(cause: string) {
      if (!over && !trial.connect) trial.connect = { ok: false, ms: round(performance.now() - mark), error: cause };
    },
    /** The end: `failure` is the engine's cause for the step in progress (or the trial's own limit), `error` the trial's. */
    finish(failure?: string, error?: string): TrialOutcome {
      if (!over) {
        if (open) close(failure);
        else if (failure !== undefined && !trial.connect)
          trial.connect = { ok: false, ms: round(performance.now() - mark), error: failure };
        if (error !== undefined) trial.error = error;
        over = true;
      }
      return trial;
    },
  };
}

const round = (ms: number) => Math.round(ms * 100) / 100;
