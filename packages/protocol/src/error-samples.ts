import { z } from "zod";
import { redactHex, redactSecrets } from "./plan-secrets";

// What an error said (issue 28 §2): each error kind keeps its first distinct messages, with when and which client, and
// for a reply the server got wrong the bytes that caused it. The agent's engines keep them (bounded, agent/PROTOCOL.md
// §5.2), the control plane keeps the first ERROR_SAMPLES_PER_KIND of each kind per run, the report shows them.

/** Distinct samples the control plane keeps per run and error kind (and an agent sends per shard and kind at most). */
export const ERROR_SAMPLES_PER_KIND = 100;
/** Error kinds an agent keeps samples of per shard; later kinds are only counted (errorsByKind). */
export const ERROR_SAMPLE_KINDS = 32;
/** Samples one snapshot carries at most; an engine holds the rest for its next seconds. */
export const ERROR_SAMPLES_PER_SNAPSHOT = 50;
/** Bytes of the message that caused an error a sample keeps (the rest is only counted in `length`). */
export const ERROR_SAMPLE_BYTES = 256;
/** Characters of an error's message a sample keeps. */
export const ERROR_MESSAGE_CHARS = 300;

/** The bytes that caused an error (a bad reply, a rejected session step, a message that broke the protocol). */
export const ErrorSampleBytes = z.object({
  /** The whole message's length in bytes. */
  length: z.number().int().min(0),
  /** Its first ERROR_SAMPLE_BYTES bytes as lowercase hex; a secret's value shows as "*" bytes (2a). */
  hex: z
    .string()
    .regex(/^([0-9a-f]{2})*$/, { message: "lowercase hex, whole bytes" })
    .max(ERROR_SAMPLE_BYTES * 2),
});
export type ErrorSampleBytes = z.infer<typeof ErrorSampleBytes>;

/** agent → server, in a snapshot (MetricSnapshot.errorSamples): one distinct error its engines saw, the first time they saw it. */
export const ErrorSample = z.object({
  /** The errorsByKind key it was counted under: "bad-reply", "session-rejected", "refused", "timeout"… */
  kind: z.string().min(1).max(64),
  /** What went wrong, in the engine's or the operating system's words (a secret's value shows as {{secrets.NAME}}). */
  message: z.string().max(ERROR_MESSAGE_CHARS),
  /** When, epoch milliseconds in server time (as the snapshot's intervalStart). */
  at: z.number().int().min(0),
  /** The client's number in the run ({{client}}), when the error was one client's. */
  client: z.number().int().min(0).optional(),
  bytes: ErrorSampleBytes.optional(),
});
export type ErrorSample = z.infer<typeof ErrorSample>;

/** A stored sample as the API, the report and the exports give it: the agent that saw it and its time since the run's start. */
export const ErrorSampleView = ErrorSample.extend({
  agentId: z.string().uuid(),
  /** Milliseconds from the run's start (null before the run started, which a stored sample never is). */
  sinceStartMs: z.number().int().nullable(),
});
export type ErrorSampleView = z.infer<typeof ErrorSampleView>;

/** GET /api/runs/:id/errors: the run's samples in the order they happened (the report groups them by kind). */
export const RunErrorSamples = z.object({
  runId: z.string().uuid(),
  /** Distinct samples kept per kind: a kind that has this many may have had more. */
  perKind: z.number().int(),
  samples: z.array(ErrorSampleView),
});
export type RunErrorSamples = z.infer<typeof RunErrorSamples>;

/** The sample with every secret value taken out of its message and bytes (agent/PROTOCOL.md §14): done by the agent and again by the api. */
export function redactErrorSample<S extends ErrorSample>(sample: S, values: Readonly<Record<string, string>>): S {
  if (Object.keys(values).length === 0) return sample;
  return {
    ...sample,
    message: redactSecrets(sample.message, values).slice(0, ERROR_MESSAGE_CHARS),
    ...(sample.bytes ? { bytes: { ...sample.bytes, hex: redactHex(sample.bytes.hex, values) } } : {}),
  };
}

/** Two samples are the same error when kind, message and bytes are: the key the agent and the store keep them distinct by. */
export function errorSampleKey(sample: Pick<ErrorSample, "kind" | "message" | "bytes">): string {
  return `${sample.kind}\u0000${sample.message}\u0000${sample.bytes?.hex ?? ""}`;
}
