import { ThrongError } from "@throng/protocol/errors";
import type { ApiDeps } from "../services";

/** The caller as a signed-in browser user: what changes the user's own memberships or session refuses API tokens. */
export async function browserOnly(
  resolveIdentity: ApiDeps["resolveIdentity"],
  request: Parameters<ApiDeps["resolveIdentity"]>[0],
) {
  const identity = await resolveIdentity(request);
  if (!identity.user || !identity.sessionId)
    throw new ThrongError("forbidden", "Sign in in the browser for this; API tokens cannot do it");
  return { ...identity, user: identity.user, sessionId: identity.sessionId };
}
