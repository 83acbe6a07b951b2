"use client";

import { useState, type FormEvent } from "react";
import { authClient } from "../../lib/auth/auth-client";
import { TextField } from "../ui/text-field";
import { authFailureText } from "../../lib/auth/auth-failure";

type Mode = "sign-in" | "sign-up";
type Field = "name" | "email" | "password";

const MIN_PASSWORD = 8;

/**
 * Sign in or up without leaving the invitation page. The shared AuthForm always moves on to
 * /agents, which would lose the link, so this smaller form stays here and reports back.
 */
export function InvitationAuthForm({ onSignedIn }: { onSignedIn: (email: string) => void }) {
  const [mode, setMode] = useState<Mode>("sign-up");
  const [values, setValues] = useState<Record<Field, string>>({ name: "", email: "", password: "" });
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const signUp = mode === "sign-up";
  const update = (field: Field) => (value: string) => setValues((current) => ({ ...current, [field]: value }));

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const email = values.email.trim();
    const found: Partial<Record<Field, string>> = {};
    if (signUp && !values.name.trim()) found.name = "Enter your name.";
    if (!/^\S+@\S+\.\S+$/.test(email)) found.email = "Enter an email address like you@example.com.";
    if (signUp ? values.password.length < MIN_PASSWORD : !values.password) {
      found.password = signUp ? `Use at least ${MIN_PASSWORD} characters.` : "Enter your password.";
    }
    setErrors(found);
    setFailure(null);
    const first = (["name", "email", "password"] as const).find((field) => found[field]);
    if (first) return document.getElementById(first)?.focus();
    setPending(true);
    try {
      const result = signUp
        ? await authClient().signUp.email({ name: values.name.trim(), email, password: values.password })
        : await authClient().signIn.email({ email, password: values.password });
      if (result.error) setFailure(authFailureText(result.error, signUp ? "Sign-up" : "Sign-in"));
      else onSignedIn(email);
    } catch {
      setFailure("Could not reach the server; check your connection and try again.");
    } finally {
      setPending(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate aria-labelledby="invite-auth-title">
      <h2 id="invite-auth-title">{signUp ? "Create your account" : "Sign in"}</h2>
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
