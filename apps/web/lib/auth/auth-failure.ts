/**
 * What a failed sign-up or sign-in says: Better Auth's own message, or our API's ErrorBody message (a rate limit's
 * "Too many attempts; try again in N s" is ours: { error: { message } }), else the status.
 */
export function authFailureText(
  error: { message?: string | undefined; status: number; error?: unknown },
  action: "Sign-up" | "Sign-in",
): string {
  const ours =
    typeof error.error === "object" && error.error !== null
      ? (error.error as { message?: unknown }).message
      : undefined;
  if (typeof ours === "string" && ours) return ours;
  if (error.message) return error.message;
  return `${action} failed (HTTP ${error.status}).`;
}
