"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useApiQuery } from "../../hooks/use-api-query";
import { queryKeys } from "../../lib/shared/query-keys";
import { settingsApi } from "../../lib/settings/settings-api";
import { can } from "../../lib/shared/settings-permissions";
import { DataTable } from "../ui/data-table";
import { MemberRow } from "./members-row";
import { ConfirmButton } from "./settings-confirm-button";
import { useMe } from "../shell/session-gate";
import { ErrorAlert } from "../ui/error-alert";

/** Members and their roles; admins and owners change roles and remove people; anyone may leave. */
export function MembersView() {
  const me = useMe();
  const { data, error } = useApiQuery(queryKeys.members, (signal) => settingsApi.listMembers(signal));
  const queryClient = useQueryClient();
  const membersChanged = () => void queryClient.invalidateQueries({ queryKey: queryKeys.members });
  const manages = can(me.role, "member.manage");

  async function leave() {
    await settingsApi.leave();
    // The session now points at another organisation (or none): start the dashboard afresh.
    window.location.assign("/agents");
  }

  return (
    <section className="settings-section" aria-labelledby="members-title">
      <div className="section-head">
        <div>
          <h2 id="members-title">Members of {me.organization.name}</h2>
          <p>
            {manages
              ? "Change a member's role or remove them. Only owners change owners."
              : "Only admins and owners change roles or remove members."}
          </p>
        </div>
        <ConfirmButton
          label="Leave organisation"
          title={`Leave ${me.organization.name}?`}
          confirmLabel="Leave"
          onConfirm={leave}
          testId="leave-org"
        >
          <p>You lose access to its plans, runs and agents until someone invites you again.</p>
        </ConfirmButton>
      </div>
      <ErrorAlert error={error} />
      {!data ? (
        !error && <p className="loading">Loading members…</p>
      ) : (
        <DataTable caption="Members" columns={["Name", "Email", "Role", "Joined", ""]} testId="member-list">
          {data.map((member) => (
            <MemberRow
              key={member.id}
              member={member}
              myRole={me.role}
              isMe={member.userId === me.user.id}
              onChanged={membersChanged}
            />
          ))}
        </DataTable>
      )}
    </section>
  );
}
