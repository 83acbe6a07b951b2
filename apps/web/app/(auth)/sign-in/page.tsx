import type { Metadata } from "next";
import { AuthForm } from "../../../components/auth/auth-form";
import { ssoFailureText } from "../../../lib/auth/sso-failure";

export const metadata: Metadata = { title: "Sign in" };

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The sign-in page; a failed single sign-on comes back here with ?error= and says why. */
export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<{ error?: string | string[]; error_description?: string | string[] }>;
}) {
  const params = await searchParams;
  const error = first(params.error);
  return (
    <AuthForm mode="sign-in" initialFailure={error ? ssoFailureText(error, first(params.error_description)) : null} />
  );
}
