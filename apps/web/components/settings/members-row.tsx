"use client";

import { useState } from "react";
import { usePendingAction } from "../../hooks/use-pending-action";
import type { MemberView, Role } from "@throng/protocol/orgs";
import { formatDateTime } from "../../lib/shared/format";
import { settingsApi } from "../../lib/settings/settings-api";
import { assignableRoles, mayManageMember, ROLE_TEXT } from "../../lib/shared/settings-permissions";
import { ConfirmButton } from "./settings-confirm-button";
import { BusyButton } from "../ui/busy-button";

interface MemberRowProps {
  member: MemberView;
  myRole: Role | undefined;
  isMe: boolean;
  onChanged: () => void;
}

/** One member: a role select with its own Save (so arrowing through the options changes nothing), and Remove. */
export function MemberRow({ member, myRole, isMe, onChanged }: MemberRowProps) {
  const [role, setRole] = useState<Role>(member.role);
  const { pending, failure, run } = usePendingAction();
  const manageable = !isMe && mayManageMember(myRole, member.role);
  const selectId = `role-${member.id}`;
  const errorId = `member-error-${member.id}`;

  function saveRole() {
    return run(async () => {
      await settingsApi.changeRole(member.id, role);
      onChanged();
    });
  }

  return (
    <tr data-testid="member-row" data-email={member.email} data-role={member.role}>
      <td>
        <strong>{member.name}</strong> {isMe && <span className="badge idle">you</span>}
      </td>
      <td>{member.email}</td>
      <td>
        {manageable ? (
          <div className="role-cell">
            <label className="sr-only" htmlFor={selectId}>
              Role of {member.email}
            </label>
            <select
              id={selectId}
              value={role}
              onChange={(event) => setRole(event.target.value as Role)}
              aria-describedby={failure ? errorId : undefined}
              data-testid="member-role"
            >
              {assignableRoles(myRole).map((option) => (
                <option key={option} value={option}>
                  {ROLE_TEXT[option]}
                </option>
              ))}
            </select>
            <BusyButton
              className="button small"
              onClick={saveRole}
              busy={pending}
              busyText="Saving…"
              disabled={role === member.role}
              label={`Save role of ${member.email}`}
              testId="save-member-role"
            >
              Save
            </BusyButton>
          </div>
        ) : (
          <span data-testid="member-role-text">{ROLE_TEXT[member.role]}</span>
        )}
        {failure && (
          <p className="row-error" id={errorId} role="alert">
            {failure}
          </p>
        )}
      </td>
      <td>{formatDateTime(member.joinedAt)}</td>
      <td>
        <div className="row-actions">
          {manageable && (
            <ConfirmButton
              label="Remove"
              accessibleLabel={`Remove ${member.email}`}
              title={`Remove ${member.name}?`}
              confirmLabel="Remove member"
              onConfirm={async () => {
                await settingsApi.removeMember(member.id);
                onChanged();
              }}
              testId="remove-member"
            >
              <p>{member.email} loses access to this organisation at once. API tokens they created stop working.</p>
            </ConfirmButton>
          )}
        </div>
      </td>
    </tr>
  );
}
