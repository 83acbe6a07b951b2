"use client";

import { useRouter } from "next/navigation";
import { apiRequest } from "../../lib/shared/api-client";
import { ConfirmButton } from "./settings-confirm-button";

/**
 * Sign out everywhere: ends every session of this user on every browser and device (Better Auth's
 * revoke-sessions), for a lost laptop or a shared machine. API tokens are separate and stay valid.
 */
export function SettingsSessions() {
  const router = useRouter();
  return (
    <section className="card" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Your sessions</h2>
      <p className="muted">
        Signed in on a machine you no longer trust? End every session of your account at once. API tokens are not
        affected: revoke those under API tokens.
      </p>
      <ConfirmButton
        label="Sign out everywhere"
        title="Sign out everywhere?"
        confirmLabel="Sign out everywhere"
        testId="sign-out-everywhere"
        onConfirm={async () => {
          await apiRequest("POST", "/api/auth/revoke-sessions", null, {});
          router.replace("/sign-in");
        }}
      >
        Every browser signed in to your account, including this one, will have to sign in again.
      </ConfirmButton>
    </section>
  );
}
