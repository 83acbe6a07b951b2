"use client";

import type { ApiTokenView } from "@throng/protocol/orgs";
import { formatAgo, formatDateTime, formatUntil } from "../lib/format";
import { settingsApi } from "../lib/settings-api";
import { ConfirmButton } from "./settings-confirm-button";

type TokenState = "active" | "expired" | "revoked";

function stateOf(token: ApiTokenView, now: number): TokenState {
  if (token.revokedAt) return "revoked";
  return new Date(token.expiresAt).getTime() <= now ? "expired" : "active";
}

const BADGE: Record<TokenState, string> = { active: "ok", expired: "idle", revoked: "bad" };

/** The organisation's API tokens, newest as the API orders them; secrets are never listed. */
export function TokenList({ tokens, onChanged }: { tokens: ApiTokenView[]; onChanged: () => void }) {
  if (tokens.length === 0) {
    return (
      <div className="empty" data-testid="tokens-empty">
        <strong>No API tokens yet.</strong>
        Create one above for a script or CI job.
      </div>
    );
  }
  const now = Date.now();
  return (
    <div className="table-wrap">
      <table className="data" data-testid="token-list">
        <caption className="sr-only">API tokens</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Scope</th>
            <th scope="col">State</th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">Last used</th>
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((token) => {
            const state = stateOf(token, now);
            return (
              <tr key={token.id} data-testid="token-row" data-token-name={token.name} data-state={state}>
                <td>
                  <strong>{token.name}</strong>
                </td>
                <td>{token.scope}</td>
                <td>
                  <span className={`badge ${BADGE[state]}`}>{state}</span>
                </td>
                <td>{formatDateTime(token.createdAt)}</td>
                <td title={formatDateTime(token.expiresAt)}>{state === "active" ? formatUntil(token.expiresAt, now) : formatDateTime(token.expiresAt)}</td>
                <td data-testid="token-last-used">{formatAgo(token.lastUsedAt, now)}</td>
                <td>
                  <div className="row-actions">
                    {state === "active" && (
                      <ConfirmButton
                        label="Revoke"
                        accessibleLabel={`Revoke token ${token.name}`}
                        title={`Revoke token “${token.name}”?`}
                        confirmLabel="Revoke token"
                        onConfirm={async () => {
                          await settingsApi.revokeToken(token.id);
                          onChanged();
                        }}
                        testId="revoke-token"
                      >
                        <p>Anything still using it gets “401 unauthenticated” from now on. This cannot be undone.</p>
                      </ConfirmButton>
                    )}
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
