/** What the sign-in and sign-up forms (the page's and the invitation's) ask for, and how they check it. */
export type CredentialMode = "sign-in" | "sign-up";
export type CredentialField = "name" | "email" | "password";
export type Credentials = Record<CredentialField, string>;
export type CredentialErrors = Partial<Record<CredentialField, string>>;

export const MIN_PASSWORD = 8;
export const EMPTY_CREDENTIALS: Credentials = { name: "", email: "", password: "" };

/** A message per field that is wrong; a sign-up needs a name and a long enough password. */
export function validateCredentials(mode: CredentialMode, values: Credentials): CredentialErrors {
  const errors: CredentialErrors = {};
  if (mode === "sign-up" && values.name.trim() === "") errors.name = "Enter your name.";
  if (!/^\S+@\S+\.\S+$/.test(values.email.trim())) errors.email = "Enter an email address like you@example.com.";
  if (mode === "sign-up" && values.password.length < MIN_PASSWORD) {
    errors.password = `Use at least ${MIN_PASSWORD} characters.`;
  }
  if (mode === "sign-in" && values.password === "") errors.password = "Enter your password.";
  return errors;
}

/** The field to focus after a failed check: the first wrong one in the form's order. */
export function firstInvalidField(errors: CredentialErrors): CredentialField | undefined {
  return (["name", "email", "password"] as const).find((field) => errors[field]);
}
