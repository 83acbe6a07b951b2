"use client";

import { useState, type FormEvent } from "react";
import type { ApiTokenCreated, TokenScope } from "@throng/protocol/orgs";
import { useApiData } from "../hooks/use-api-data";
import { ApiError, errorMessage } from "../lib/api-client";
import { settingsApi } from "../lib/settings-api";
import { can, SCOPE_TEXT, tokenScopesFor } from "../lib/settings-permissions";
import { SecretOnce } from "./settings-secret";
import { NotForYourRole } from "./settings-nav";
import { TextField } from "./text-field";
import { TokenList } from "./token-list";
import { useMe } from "./session-gate";

const EXPIRIES = [7, 30, 90, 365] as const;

/** API tokens for the CLI and CI: create (secret shown once), list, revoke. Members and up. */
export function TokenSettings() {
  const me = useMe();
  if (!can(me.role, "token.manage")) return <NotForYourRole what="Managing API tokens" who="members, admins and owners" />;
  return <TokenManager />;
}

function TokenManager() {
  const me = useMe();
  const scopes = tokenScopesFor(me.role);
  const [name, setName] = useState("");
  const [scope, setScope] = useState<TokenScope>(scopes.includes("run") ? "run" : "read");
  const [days, setDays] = useState(90);
  const [nameError, setNameError] = useState<string | undefined>();
  const [failure, setFailure] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [created, setCreated] = useState<ApiTokenCreated | null>(null);
  const tokens = useApiData((signal) => settingsApi.listTokens(signal));

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFailure(null);
    if (!name.trim()) {
      setNameError("Give the token a name, e.g. the CI job using it.");
      document.getElementById("token-name")?.focus();
      return;
    }
    setNameError(undefined);
    setPending(true);
    try {
      setCreated(await settingsApi.createToken({ name: name.trim(), scope, expiresInDays: days }));
      setName("");
      tokens.reload();
    } catch (error) {
      const fields = error instanceof ApiError ? error.fields : [];
      const onName = fields.find((field) => field.path === "name");
      if (onName) setNameError(onName.message);
      else setFailure(errorMessage(error));
    } finally {
      setPending(false);
    }
  }

  return (
    <>
      <section className="settings-section panel" aria-labelledby="new-token-title">
        <h2 id="new-token-title">Create an API token</h2>
        <p className="muted">
          For scripts and CI: send it as <code>authorization: Bearer &lt;token&gt;</code>. A token never does more than your own role.
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
            <TextField id="token-name" label="Token name" value={name} onChange={setName} error={nameError} hint="What uses it, e.g. nightly CI." />
            <div className="field">
              <label htmlFor="token-scope">Scope</label>
              <select id="token-scope" value={scope} onChange={(event) => setScope(event.target.value as TokenScope)} aria-describedby="token-scope-hint">
                {scopes.map((option) => (
                  <option key={option} value={option}>
                    {option}
                  </option>
                ))}
              </select>
              <p className="hint" id="token-scope-hint" data-testid="token-scope-hint">
                {SCOPE_TEXT[scope]}
              </p>
            </div>
            <div className="field">
              <label htmlFor="token-expiry">Expires after</label>
              <select id="token-expiry" value={days} onChange={(event) => setDays(Number(event.target.value))}>
                {EXPIRIES.map((option) => (
                  <option key={option} value={option}>
                    {option} days
                  </option>
                ))}
              </select>
            </div>
          </div>
          {failure && (
            <p className="alert" role="alert">
              {failure}
            </p>
          )}
          <button className="button primary" type="submit" disabled={pending} data-testid="create-token">
            {pending ? "Creating…" : "Create token"}
          </button>
        </form>
      </section>
      <section className="settings-section" aria-labelledby="tokens-title">
        <h2 id="tokens-title">Tokens</h2>
        {tokens.error && (
          <p className="alert" role="alert">
            {tokens.error}
          </p>
        )}
        {tokens.data ? <TokenList tokens={tokens.data} onChanged={tokens.reload} /> : !tokens.error && <p className="loading">Loading tokens…</p>}
      </section>
    </>
  );
}
