import { z } from "zod";

/** The one list of error codes. Each channel (HTTP, agent socket, jobs, CLI) maps it once. */
export const ErrorCode = z.enum([
  "validation_failed",
  "unauthenticated",
  "forbidden",
  "not_found",
  /** The path exists but not with this method (the answer lists the ones it has). */
  "method_not_allowed",
  "conflict",
  "no_agent_online",
  "unsupported_version",
  "rate_limited",
  "unavailable",
  /** Something the request waited for (an agent's answer) did not come in time. */
  "timeout",
  "internal",
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** One field that failed validation: a dotted path into the input and what to do about it. */
export const FieldError = z.object({ path: z.string(), message: z.string() });
export type FieldError = z.infer<typeof FieldError>;

/** Body of every HTTP error answer from the API. */
export const ErrorBody = z.object({
  error: z.object({
    code: ErrorCode,
    message: z.string(),
    fields: z.array(FieldError).optional(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** The one error class: thrown by core, mapped to a status / close code / exit code by each channel. */
export class ThrongError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly fields?: FieldError[],
  ) {
    super(message);
    this.name = "ThrongError";
  }
}

/** Turns zod issues into field errors that name the field ("load.clients") and say what is wrong. */
export function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join(".") || "(root)",
    message: issue.message,
  }));
}

/** Parses `input` with `schema` or throws a validation_failed ThrongError naming every bad field. */
export function parseOrThrow<T extends z.ZodType>(schema: T, input: unknown, what: string): z.infer<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const fields = fieldErrors(result.error);
  const first = fields[0];
  const summary = first ? `${first.path}: ${first.message}` : "invalid";
  throw new ThrongError("validation_failed", `Invalid ${what} (${summary})`, fields);
}
