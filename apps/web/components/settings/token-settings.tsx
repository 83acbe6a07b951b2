"use client";

import { useState, type FormEvent } from "react";
import type { ApiTokenCreated, TokenScope } from "@throng/protocol/orgs";
import { useApiMutation } from "../../hooks/use-api-mutation";
import { useApiQuery } from "../../hooks/use-api-query";
import { errorMessage } from "../../lib/shared/api-client";
import { queryKeys } from "../../lib/shared/query-keys";
import { settingsApi } from "../../lib/settings/settings-api";
import { SCOPE_TEXT, tokenScopesFor } from "../../lib/shared/settings-permissions";
import { SecretOnce } from "./settings-secret";
import { forRole } from "./settings-nav";
import { TextField } from "../ui/text-field";
import { TokenList } from "./token-list";
import { useMe } from "../shell/session-gate";
import { ErrorAlert } from "../ui/error-alert";
import { SettingsListSection } from "./settings-list-section";
import { SelectField } from "../ui/select-field";
import { BusyButton } from "../ui/busy-button";

const EXPIRIES = [7, 30, 90, 365] as const;

/** API tokens for the CLI and CI: create (secret shown once), list, revoke. Members and up. */
export const TokenSettings = forRole("token.manage", "Managing API tokens", TokenManager);

function TokenManager() {
  const me = useMe();
  const scopes = tokenScopesFor(me.role);
  const [name, setName] = useState("");
  const [scope, setScope] = useState<TokenScope>(scopes.includes("run") ? "run" : "read");
  const [days, setDays] = useState(90);
  const [missingName, setMissingName] = useState(false);
  const [created, setCreated] = useState<ApiTokenCreated | null>(null);
  const tokens = useApiQuery(queryKeys.tokens, (signal) => settingsApi.listTokens(signal));
  const creating = useApiMutation(settingsApi.createToken, [queryKeys.tokens]);
  const nameError = missingName ? "Give the token a name, e.g. the CI job using it." : creating.fieldErrors.name;
  // Only the name is typed; a refusal naming anything else (the selects) reads as one message.
  const failure = creating.isError && !creating.fieldErrors.name ? errorMessage(creating.error) : null;

  function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    creating.reset();
    setMissingName(!name.trim());
    if (!name.trim()) {
      document.getElementById("token-name")?.focus();
      return;
    }
    creating.mutate(
      { name: name.trim(), scope, expiresInDays: days },
      {
        onSuccess: (token) => {
          setCreated(token);
          setName("");
        },
      },
    );
  }

  return (
    <>
      <section className="settings-section panel" aria-labelledby="new-token-title">
        <h2 id="new-token-title">Create an API token</h2>
        <p className="muted">
          For scripts and CI: send it as <code>authorization: Bearer &lt;token&gt;</code>. A token never does more than
          your own role.
        </p>
        {created && (
          <SecretOnce
            title={`Token “${created.name}” (${created.scope})`}
            secret={created.token}
            what="API token"
            warning="Copy the token now: it is shown only once and cannot be recovered. Store it as a secret; revoke it here if it leaks."
            onDone={() => setCreated(null)}
            testId="token-secret"
          />
        )}
        <form className="settings-form" onSubmit={create} noValidate>
          <div className="form-grid">
            <TextField
              id="token-name"
              label="Token name"
              value={name}
              onChange={setName}
              error={nameError}
              hint="What uses it, e.g. nightly CI."
            />
            <SelectField
              id="token-scope"
              label="Scope"
              value={scope}
              options={scopes.map((option) => ({ id: option, label: option }))}
              onChange={setScope}
              hint={SCOPE_TEXT[scope]}
            />
            <SelectField
              id="token-expiry"
              label="Expires after"
              value={days}
              options={EXPIRIES.map((option) => ({ id: option, label: `${option} days` }))}
              onChange={setDays}
            />
          </div>
          <ErrorAlert error={failure} />
          <BusyButton busy={creating.isPending} busyText="Creating…" testId="create-token">
            Create token
          </BusyButton>
        </form>
      </section>
      <SettingsListSection id="tokens" title="Tokens" list={tokens} loading="Loading tokens…">
        {(data) => <TokenList tokens={data} />}
      </SettingsListSection>
    </>
  );
}
