"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { SsoSignIn, SsoSignInStarted } from "@throng/protocol/sso";
import { apiRequest, errorMessage } from "../../lib/shared/api-client";
import { authClient } from "../../lib/auth/auth-client";
import { TextField } from "../ui/text-field";
import { authFailureText } from "../../lib/auth/auth-failure";

type Mode = "sign-in" | "sign-up";
type Field = "name" | "email" | "password";
type Errors = Partial<Record<Field, string>>;

const MIN_PASSWORD = 8;

function validate(mode: Mode, values: Record<Field, string>): Errors {
  const errors: Errors = {};
  if (mode === "sign-up" && values.name.trim() === "") errors.name = "Enter your name.";
  if (!/^\S+@\S+\.\S+$/.test(values.email.trim())) errors.email = "Enter an email address like you@example.com.";
  if (mode === "sign-up" && values.password.length < MIN_PASSWORD) {
    errors.password = `Use at least ${MIN_PASSWORD} characters.`;
  }
  if (mode === "sign-in" && values.password === "") errors.password = "Enter your password.";
  return errors;
}

/**
 * Sign-in and sign-up against Better Auth in the API; on success, on to Home. Signing in also offers "Sign in with
 * SSO": the work email's organisation's identity provider, by its verified domain.
 */
export function AuthForm({ mode, initialFailure = null }: { mode: Mode; initialFailure?: string | null }) {
  const router = useRouter();
  const [values, setValues] = useState<Record<Field, string>>({ name: "", email: "", password: "" });
  const [errors, setErrors] = useState<Errors>({});
  const [failure, setFailure] = useState<string | null>(initialFailure);
  const [pending, setPending] = useState(false);
  const signUp = mode === "sign-up";

  const update = (field: Field) => (value: string) => setValues((current) => ({ ...current, [field]: value }));

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const found = validate(mode, values);
    setErrors(found);
    setFailure(null);
    const firstInvalid = (["name", "email", "password"] as const).find((field) => found[field]);
    if (firstInvalid) {
      requestAnimationFrame(() => document.getElementById(firstInvalid)?.focus());
      return;
    }
    setPending(true);
    try {
      const email = values.email.trim();
      const result = signUp
        ? await authClient().signUp.email({ name: values.name.trim(), email, password: values.password })
        : await authClient().signIn.email({ email, password: values.password });
      if (result.error) {
        setFailure(authFailureText(result.error, signUp ? "Sign-up" : "Sign-in"));
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
      {failure && (
        <p className="alert" role="alert" data-testid="auth-error">
          {failure}
        </p>
      )}
      {signUp && (
        <TextField
          id="name"
          label="Name"
          value={values.name}
          onChange={update("name")}
          error={errors.name}
          autoComplete="name"
        />
      )}
      <TextField
        id="email"
        label="Email"
        type="email"
        value={values.email}
        onChange={update("email")}
        error={errors.email}
        autoComplete="email"
      />
      <TextField
        id="password"
        label="Password"
        type="password"
        value={values.password}
        onChange={update("password")}
        error={errors.password}
        hint={signUp ? `At least ${MIN_PASSWORD} characters.` : undefined}
        autoComplete={signUp ? "new-password" : "current-password"}
      />
      <div className="form-actions">
        <button className="button primary" type="submit" disabled={pending}>
          {pending ? "Please wait…" : signUp ? "Create account" : "Sign in"}
        </button>
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
