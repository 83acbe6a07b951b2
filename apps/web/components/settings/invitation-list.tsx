"use client";

import { useQueryClient } from "@tanstack/react-query";
import type { InvitationView, MemberView } from "@throng/protocol/orgs";
import { formatDateTime, formatUntil } from "../../lib/shared/format";
import { queryKeys } from "../../lib/shared/query-keys";
import { settingsApi } from "../../lib/settings/settings-api";
import { ROLE_TEXT } from "../../lib/shared/settings-permissions";
import { DataTable } from "../ui/data-table";
import { ConfirmButton } from "./settings-confirm-button";

interface InvitationListProps {
  invitations: InvitationView[];
  members: MemberView[];
}

/** Links not yet used, expired or revoked; the link itself is never shown again. */
export function InvitationList({ invitations, members }: InvitationListProps) {
  const queryClient = useQueryClient();
  if (invitations.length === 0) {
    return (
      <div className="empty" data-testid="invitations-empty">
        <strong>No pending invitations.</strong>
        Links that are used, expire or are revoked leave this list.
      </div>
    );
  }
  const nameOf = (userId: string | null) => members.find((m) => m.userId === userId)?.email ?? "a former member";
  return (
    <DataTable caption="Pending invitations" columns={["Role", "Created by", "Expires", ""]} testId="invitation-list">
      {invitations.map((invitation) => (
        <tr key={invitation.id} data-testid="invitation-row" data-role={invitation.role}>
          <td>{ROLE_TEXT[invitation.role]}</td>
          <td>{nameOf(invitation.createdBy)}</td>
          <td>
            <span title={formatDateTime(invitation.expiresAt)}>{formatUntil(invitation.expiresAt)}</span>
          </td>
          <td>
            <div className="row-actions">
              <ConfirmButton
                label="Revoke"
                accessibleLabel={`Revoke ${invitation.role} invitation expiring ${formatDateTime(invitation.expiresAt)}`}
                title="Revoke this invitation?"
                confirmLabel="Revoke link"
                onConfirm={async () => {
                  await settingsApi.revokeInvitation(invitation.id);
                  // The dialog closes once the invitation has left the list.
                  await queryClient.invalidateQueries({ queryKey: queryKeys.invitations });
                }}
                testId="revoke-invitation"
              >
                <p>The link stops working at once. Someone who already joined with it stays a member.</p>
              </ConfirmButton>
            </div>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
