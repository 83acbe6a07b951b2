"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import type { InvitationPreview } from "@throng/protocol/orgs";
import { useApiQuery } from "../../hooks/use-api-query";
import { errorMessage } from "../../lib/shared/api-client";
import { queryKeys } from "../../lib/shared/query-keys";
import { authClient } from "../../lib/auth/auth-client";
import { settingsApi } from "../../lib/settings/settings-api";
import { InvitationAuthForm } from "./invitation-auth-form";
import { BusyButton } from "../ui/busy-button";
import { ErrorAlert } from "../ui/error-alert";

type Preview =
  | { state: "loading" }
  | { state: "known"; preview: InvitationPreview }
  | { state: "refused"; message: string };

/** "Join Acme as viewer", or the API's reason when the link is no good. */
function PreviewLine({ preview }: { preview: Preview }) {
  if (preview.state === "loading") return null;
  if (preview.state === "refused") {
    return (
      <p className="alert" role="alert" data-testid="invitation-preview-refused">
        {preview.message}
      </p>
    );
  }
  return (
    <p data-testid="invitation-preview">
      Join <strong>{preview.preview.orgName}</strong> as <strong>{preview.preview.role}</strong>
    </p>
  );
}

type Visitor = { state: "checking" } | { state: "signed-out" } | { state: "signed-in"; email: string };

/**
 * /invite/<token>: a signed-out visitor signs in or up right here and stays on the page;
 * a signed-in one joins. The API decides everything about the link (org, role, expiry), so an
 * unknown, expired or used link is reported in its words when Join is pressed.
 */
export function InvitationAccept({ token }: { token: string }) {
  const router = useRouter();
  const [visitor, setVisitor] = useState<Visitor>({ state: "checking" });
  const [failure, setFailure] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const read = useApiQuery(queryKeys.invitationPreview(token), (signal) =>
    settingsApi.previewInvitation(token, signal),
  );
  const preview: Preview = read.data
    ? { state: "known", preview: read.data }
    : read.error
      ? { state: "refused", message: read.error }
      : { state: "loading" };

  useEffect(() => {
    let current = true;
    authClient()
      .getSession()
      .then(({ data }) => {
        if (current) setVisitor(data?.user ? { state: "signed-in", email: data.user.email } : { state: "signed-out" });
      })
      .catch(() => current && setVisitor({ state: "signed-out" }));
    return () => {
      current = false;
    };
  }, []);

  async function join() {
    setPending(true);
    setFailure(null);
    try {
      await settingsApi.acceptInvitation(token);
      // The API made the invited organisation the session's active one: land on its Home, the overview.
      router.replace("/");
    } catch (error) {
      setFailure(errorMessage(error));
      setPending(false);
    }
  }

  async function signOut() {
    await authClient().signOut();
    setVisitor({ state: "signed-out" });
  }

  if (visitor.state === "checking") return <p className="loading">Checking who you are…</p>;
  if (visitor.state === "signed-out") {
    return (
      <>
        <h1>{preview.state === "refused" ? "This invitation link cannot be used" : "You are invited to Throng"}</h1>
        <PreviewLine preview={preview} />
        <p className="muted">
          {preview.state === "refused"
            ? "You can still sign in or create an account here, but this link adds you to no organisation: ask whoever invited you for a new one."
            : "Sign in or create an account to accept the invitation; you come back here afterwards."}
        </p>
        <InvitationAuthForm onSignedIn={(email) => setVisitor({ state: "signed-in", email })} />
      </>
    );
  }
  return (
    <section aria-labelledby="join-title" data-testid="invitation-join">
      {/* The heading names the organisation and role once it is known; only a refusal needs a line of its own. */}
      {preview.state === "known" ? (
        <h1 id="join-title" data-testid="invitation-preview">
          Join {preview.preview.orgName} as {preview.preview.role}
        </h1>
      ) : (
        <>
          <h1 id="join-title">Join the organisation</h1>
          <PreviewLine preview={preview} />
        </>
      )}
      <p>
        You are signed in as <strong data-testid="invitation-email">{visitor.email}</strong>. The link adds you to the
        organisation that invited you, with the role chosen when it was created.
      </p>
      <ErrorAlert error={failure} testId="invitation-error" />
      <div className="form-actions">
        <BusyButton onClick={join} busy={pending} busyText="Joining…" testId="accept-invitation">
          Join organisation
        </BusyButton>
        <button className="link-button" type="button" onClick={signOut}>
          Not you? Sign out
        </button>
      </div>
      {failure && (
        <p className="muted">
          <a href="/">Go to your dashboard</a>
        </p>
      )}
    </section>
  );
}
