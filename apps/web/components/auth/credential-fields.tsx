"use client";

import { useState } from "react";
import { authClient } from "../../lib/auth/auth-client";
import { authFailureText } from "../../lib/auth/auth-failure";
import {
  type CredentialErrors,
  type CredentialField,
  type CredentialMode,
  type Credentials,
  EMPTY_CREDENTIALS,
  firstInvalidField,
  MIN_PASSWORD,
  validateCredentials,
} from "../../lib/auth/credentials";
import { fieldBinder, TextField } from "../ui/text-field";
import { ErrorAlert } from "../ui/error-alert";

/** The state both sign-in/sign-up forms keep: what was typed, what is wrong, the server's refusal, a request out. */
export function useCredentialsForm(initialFailure: string | null = null) {
  const [values, setValues] = useState<Credentials>(EMPTY_CREDENTIALS);
  const [errors, setErrors] = useState<CredentialErrors>({});
  const [failure, setFailure] = useState<string | null>(initialFailure);
  const [pending, setPending] = useState(false);
  const update = (field: CredentialField) => (value: string) =>
    setValues((current) => ({ ...current, [field]: value }));
  // Before a submit: show what is wrong, drop the last refusal, and name the field to focus (none: send it).
  const check = (mode: CredentialMode): CredentialField | undefined => {
    const found = validateCredentials(mode, values);
    setErrors(found);
    setFailure(null);
    return firstInvalidField(found);
  };
  return { values, update, check, errors, setErrors, failure, setFailure, pending, setPending };
}

/** Signs up or in with Better Auth; the refusal's text, or null when it worked. Throws when the server is unreachable. */
export async function signInOrUp(mode: CredentialMode, values: Credentials): Promise<string | null> {
  const email = values.email.trim();
  const signUp = mode === "sign-up";
  const result = signUp
    ? await authClient().signUp.email({ name: values.name.trim(), email, password: values.password })
    : await authClient().signIn.email({ email, password: values.password });
  return result.error ? authFailureText(result.error, signUp ? "Sign-up" : "Sign-in") : null;
}

/** The refusal, then name (sign-up only), email and password with their errors. */
export function CredentialFields({
  mode,
  values,
  errors,
  failure,
  update,
}: {
  mode: CredentialMode;
  values: Credentials;
  errors: CredentialErrors;
  failure: string | null;
  update: (field: CredentialField) => (value: string) => void;
}) {
  const signUp = mode === "sign-up";
  const field = fieldBinder(values, update, errors);
  return (
    <>
      <ErrorAlert error={failure} testId="auth-error" />
      {signUp && <TextField {...field("name")} label="Name" autoComplete="name" />}
      <TextField {...field("email")} label="Email" type="email" autoComplete="email" />
      <TextField
        {...field("password")}
        label="Password"
        type="password"
        hint={signUp ? `At least ${MIN_PASSWORD} characters.` : undefined}
        autoComplete={signUp ? "new-password" : "current-password"}
      />
    </>
  );
}
