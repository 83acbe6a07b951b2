"use client";

import { type FormEvent, useState } from "react";
import type { CredentialMode } from "../../lib/auth/credentials";
import { CredentialFields, signInOrUp, useCredentialsForm } from "./credential-fields";
import { BusyButton } from "../ui/busy-button";

/**
 * Sign in or up without leaving the invitation page. The shared AuthForm always moves on to
 * /agents, which would lose the link, so this smaller form stays here and reports back.
 */
export function InvitationAuthForm({ onSignedIn }: { onSignedIn: (email: string) => void }) {
  const [mode, setMode] = useState<CredentialMode>("sign-up");
  const { values, update, check, errors, setErrors, failure, setFailure, pending, setPending } = useCredentialsForm();
  const signUp = mode === "sign-up";

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const first = check(mode);
    if (first) return document.getElementById(first)?.focus();
    setPending(true);
    try {
      const refusal = await signInOrUp(mode, values);
      if (refusal) setFailure(refusal);
      else onSignedIn(values.email.trim());
    } catch {
      setFailure("Could not reach the server; check your connection and try again.");
    } finally {
      setPending(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate aria-labelledby="invite-auth-title">
      <h2 id="invite-auth-title">{signUp ? "Create your account" : "Sign in"}</h2>
      <CredentialFields mode={mode} values={values} errors={errors} failure={failure} update={update} />
      <div className="form-actions">
        <BusyButton busy={pending} busyText="Please wait…">
          {signUp ? "Create account" : "Sign in"}
        </BusyButton>
      </div>
      <p className="muted mode-switch">
        {signUp ? "Have an account? " : "New here? "}
        <button
          className="link-button"
          type="button"
          onClick={() => {
            setMode(signUp ? "sign-in" : "sign-up");
            setErrors({});
            setFailure(null);
          }}
        >
          {signUp ? "Sign in instead" : "Create an account instead"}
        </button>
      </p>
    </form>
  );
}
