"use client";

import { useQueryClient } from "@tanstack/react-query";
import type { SecretView } from "@throng/protocol/secrets";
import { formatDateTime } from "../../lib/shared/format";
import { queryKeys } from "../../lib/shared/query-keys";
import { secretsApi } from "../../lib/settings/secrets-api";
import { DataTable } from "../ui/data-table";
import { ConfirmButton, rowActionWords } from "./settings-confirm-button";

/** The organisation's secrets by name, with who set them when; there is no value to show. */
export function SecretList({ secrets, onReplace }: { secrets: SecretView[]; onReplace: (name: string) => void }) {
  const queryClient = useQueryClient();
  if (secrets.length === 0) {
    return (
      <div className="empty" data-testid="secrets-empty">
        <strong>No secrets yet.</strong>
        Add one above, then name it in a plan as {"{{secrets.NAME}}"}.
      </div>
    );
  }
  return (
    <DataTable
      caption="Secrets"
      columns={["Name", "In a plan", "Set by", "Last set", "Added", ""]}
      testId="secret-list"
    >
      {secrets.map((secret) => (
        <tr key={secret.name} data-testid="secret-row" data-secret-name={secret.name}>
          <td>
            <strong>{secret.name}</strong>
          </td>
          <td>
            <code>{`{{secrets.${secret.name}}}`}</code>
          </td>
          <td>{secret.updatedBy ?? "—"}</td>
          <td>{formatDateTime(secret.updatedAt)}</td>
          <td>{formatDateTime(secret.createdAt)}</td>
          <td>
            <div className="row-actions">
              <button
                className="button small"
                type="button"
                onClick={() => onReplace(secret.name)}
                aria-label={`Replace the value of ${secret.name}`}
                data-testid="replace-secret"
              >
                Replace value
              </button>
              <ConfirmButton
                {...rowActionWords("Delete", "secret", secret.name)}
                onConfirm={async () => {
                  await secretsApi.remove(secret.name);
                  await Promise.all([
                    queryClient.invalidateQueries({ queryKey: queryKeys.secrets }),
                    queryClient.invalidateQueries({ queryKey: queryKeys.audit }),
                  ]);
                }}
                testId="delete-secret"
              >
                <p>
                  Plans that name <code>{`{{secrets.${secret.name}}}`}</code> are refused at start until it is set
                  again; a run already going keeps what its agents were given. This cannot be undone.
                </p>
              </ConfirmButton>
            </div>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
