"use client";

import { useState, type FormEvent } from "react";
import type { InvitationCreated, Role } from "@throng/protocol/orgs";
import { useApiMutation } from "../../hooks/use-api-mutation";
import { useApiQuery } from "../../hooks/use-api-query";
import { errorMessage } from "../../lib/shared/api-client";
import { queryKeys } from "../../lib/shared/query-keys";
import { settingsApi } from "../../lib/settings/settings-api";
import { invitableRoles, ROLE_TEXT } from "../../lib/shared/settings-permissions";
import { InvitationList } from "./invitation-list";
import { SecretOnce } from "./settings-secret";
import { forRole } from "./settings-nav";
import { useMe } from "../shell/session-gate";
import { ErrorAlert } from "../ui/error-alert";
import { SelectField } from "../ui/select-field";
import { BusyButton } from "../ui/busy-button";

const EXPIRIES = [
  { hours: 24, label: "1 day" },
  { hours: 72, label: "3 days" },
  { hours: 168, label: "7 days" },
  { hours: 720, label: "30 days" },
] as const;

/** Invitation links: create one (shown once), see the pending ones, revoke. Admins and owners only. */
export const InvitationSettings = forRole("member.manage", "Inviting people", InvitationManager);

function InvitationManager() {
  const me = useMe();
  const roles = invitableRoles(me.role);
  const [role, setRole] = useState<Exclude<Role, "owner">>("member");
  const [hours, setHours] = useState(72);
  const [created, setCreated] = useState<InvitationCreated | null>(null);
  const invitations = useApiQuery(queryKeys.invitations, (signal) => settingsApi.listInvitations(signal));
  // Members name who created each invitation; the same cached list as the Members page.
  const members = useApiQuery(queryKeys.members, (signal) => settingsApi.listMembers(signal));
  const listError = invitations.error ?? members.error;
  const creating = useApiMutation(settingsApi.createInvitation, [queryKeys.invitations]);
  // Role and expiry come from selects: any refusal reads as one message.
  const failure = creating.isError ? errorMessage(creating.error) : null;

  function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    creating.mutate({ role, expiresInHours: hours }, { onSuccess: setCreated });
  }

  return (
    <>
      <section className="settings-section panel" aria-labelledby="invite-title">
        <h2 id="invite-title">Invite someone</h2>
        <p className="muted">
          Create a link and send it to them. Whoever opens it while signed in joins {me.organization.name} with the role
          you pick.
        </p>
        {created && (
          <SecretOnce
            title={`Invitation link for a ${created.role}`}
            secret={created.link}
            what="invitation link"
            warning="Copy the link now: it is shown only once. Anyone with it can join until it expires or is used."
            onDone={() => setCreated(null)}
            testId="invitation-link"
          />
        )}
        <form className="settings-form" onSubmit={create} aria-describedby={failure ? "invite-error" : undefined}>
          <div className="form-grid">
            <SelectField
              id="invite-role"
              label="Role"
              value={role}
              options={roles.map((option) => ({ id: option, label: ROLE_TEXT[option] }))}
              onChange={setRole}
            />
            <SelectField
              id="invite-expiry"
              label="Link expires after"
              value={hours}
              options={EXPIRIES.map((option) => ({ id: option.hours, label: option.label }))}
              onChange={setHours}
            />
          </div>
          {failure && (
            <p className="alert" role="alert" id="invite-error">
              {failure}
            </p>
          )}
          <BusyButton busy={creating.isPending} busyText="Creating…" testId="create-invitation">
            Create invitation link
          </BusyButton>
        </form>
      </section>
      <section className="settings-section" aria-labelledby="pending-title">
        <h2 id="pending-title">Pending invitations</h2>
        <ErrorAlert error={listError} />
        {invitations.data && members.data ? (
          <InvitationList invitations={invitations.data} members={members.data} />
        ) : (
          !listError && <p className="loading">Loading invitations…</p>
        )}
      </section>
    </>
  );
}
