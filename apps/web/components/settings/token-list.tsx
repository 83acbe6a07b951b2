"use client";

import { useQueryClient } from "@tanstack/react-query";
import type { ApiTokenView } from "@throng/protocol/orgs";
import { formatAgo, formatDateTime, formatUntil } from "../../lib/shared/format";
import { queryKeys } from "../../lib/shared/query-keys";
import { settingsApi } from "../../lib/settings/settings-api";
import { DataTable } from "../ui/data-table";
import { ConfirmButton, rowActionWords } from "./settings-confirm-button";

type TokenState = "active" | "expired" | "revoked";

function stateOf(token: ApiTokenView, now: number): TokenState {
  if (token.revokedAt) return "revoked";
  return new Date(token.expiresAt).getTime() <= now ? "expired" : "active";
}

const BADGE: Record<TokenState, string> = { active: "ok", expired: "idle", revoked: "bad" };

/** The organisation's API tokens, newest as the API orders them; secrets are never listed. */
export function TokenList({ tokens }: { tokens: ApiTokenView[] }) {
  const queryClient = useQueryClient();
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
    <DataTable
      caption="API tokens"
      columns={["Name", "Scope", "State", "Created", "Expires", "Last used", ""]}
      testId="token-list"
    >
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
            <td title={formatDateTime(token.expiresAt)}>
              {state === "active" ? formatUntil(token.expiresAt, now) : formatDateTime(token.expiresAt)}
            </td>
            <td data-testid="token-last-used">{formatAgo(token.lastUsedAt, now)}</td>
            <td>
              <div className="row-actions">
                {state === "active" && (
                  <ConfirmButton
                    {...rowActionWords("Revoke", "token", token.name)}
                    onConfirm={async () => {
                      await settingsApi.revokeToken(token.id);
                      // The dialog closes once the list shows the token revoked.
                      await queryClient.invalidateQueries({ queryKey: queryKeys.tokens });
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
    </DataTable>
  );
}
