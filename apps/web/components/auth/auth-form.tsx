"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import type { FormEvent } from "react";
import { SsoSignIn, SsoSignInStarted } from "@throng/protocol/sso";
import { apiRequest, errorMessage } from "../../lib/shared/api-client";
import type { CredentialMode } from "../../lib/auth/credentials";
import { CredentialFields, signInOrUp, useCredentialsForm } from "./credential-fields";
import { BusyButton } from "../ui/busy-button";

/**
 * Sign-in and sign-up against Better Auth in the API; on success, on to Home. Signing in also offers "Sign in with
 * SSO": the work email's organisation's identity provider, by its verified domain.
 */
export function AuthForm({ mode, initialFailure = null }: { mode: CredentialMode; initialFailure?: string | null }) {
  const router = useRouter();
  const { values, update, check, errors, setErrors, failure, setFailure, pending, setPending } =
    useCredentialsForm(initialFailure);
  const signUp = mode === "sign-up";

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const firstInvalid = check(mode);
    if (firstInvalid) {
      requestAnimationFrame(() => document.getElementById(firstInvalid)?.focus());
      return;
    }
    setPending(true);
    try {
      const refusal = await signInOrUp(mode, values);
      if (refusal) {
        setFailure(refusal);
        return;
      }
      // Home: a new organisation's getting-started checklist, or a returning user's overview.
      router.replace("/");
    } catch {
      setFailure("Could not reach the server; check that Throng is running and try again.");
    } finally {
      setPending(false);
    }
  }

  async function signInWithSso() {
    const email = SsoSignIn.safeParse({ email: values.email });
    setFailure(null);
    if (!email.success) {
      setErrors({ email: "Enter your work email, like you@example.com, to sign in with SSO." });
      requestAnimationFrame(() => document.getElementById("email")?.focus());
      return;
    }
    setErrors({});
    setPending(true);
    try {
      const started = await apiRequest("POST", "/api/sso/sign-in", SsoSignInStarted, email.data);
      window.location.assign(started.url);
    } catch (error) {
      setFailure(errorMessage(error));
      setPending(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate aria-labelledby="auth-title">
      <h1 id="auth-title">{signUp ? "Create your account" : "Sign in"}</h1>
      <p className="muted">
        {signUp
          ? "You get your own organisation to run load tests in."
          : "Sign in to see your organisation's plans, runs and agents."}
      </p>
      <CredentialFields mode={mode} values={values} errors={errors} failure={failure} update={update} />
      <div className="form-actions">
        <BusyButton busy={pending} busyText="Please wait…">
          {signUp ? "Create account" : "Sign in"}
        </BusyButton>
        {!signUp && (
          <button className="button" type="button" disabled={pending} onClick={signInWithSso} data-testid="sso-sign-in">
            Sign in with SSO
          </button>
        )}
        {signUp ? (
          <span className="muted">
            Have an account? <Link href="/sign-in">Sign in</Link>
          </span>
        ) : (
          <span className="muted">
            New here? <Link href="/sign-up">Create an account</Link>
          </span>
        )}
      </div>
    </form>
  );
}
