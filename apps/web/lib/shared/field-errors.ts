import { ApiError } from "./api-client";

/**
 * A form's field errors from the API's refusal, keyed by the first segment of each path (`auth.token` → `auth`);
 * null when the API named no field (then the form shows the message as a whole).
 */
export function fieldErrorsOf(error: unknown): Record<string, string> | null {
  const fields = error instanceof ApiError ? error.fields : [];
  return fields.length ? Object.fromEntries(fields.map((field) => [field.path.split(".")[0]!, field.message])) : null;
}
