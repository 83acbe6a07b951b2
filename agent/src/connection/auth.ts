import type { AgentAuth } from "@throng/protocol/agent";
import type { StoredCredential } from "./credential-file";

export interface AuthChoice {
  /** What the next hello carries: the credential when there is one, else the token. */
  next(): AgentAuth;
  /** The credential from `ready`, used from the next hello on (the token is one-time). */
  store(credential: StoredCredential): void;
  /**
   * After a 4003: whether to retry at once with the token. True only once, when a stored credential
   * was rejected and the token was never sent, i.e. a revoked machine re-enrolled with a new token.
   */
  fallBackToToken(rejected: AgentAuth): boolean;
}

export function createAuthChoice(credential: StoredCredential | undefined, token: string | undefined): AuthChoice {
  let current = credential;
  let tokenSent = false;
  return {
    next() {
      if (current) return { kind: "credential", agentId: current.agentId, secret: current.secret };
      tokenSent = true;
      return { kind: "enrolment", token: token ?? "" };
    },
    store(stored) {
      current = stored;
    },
    fallBackToToken(rejected) {
      if (rejected.kind !== "credential" || !token || tokenSent) return false;
      current = undefined;
      return true;
    },
  };
}
