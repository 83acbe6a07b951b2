"use client";

import { useState, type FormEvent } from "react";
import type { SsoProviderView, SsoSettings } from "@throng/protocol/sso";
import { useApiMutation } from "../../hooks/use-api-mutation";
import { queryKeys } from "../../lib/shared/query-keys";
import { ssoApi } from "../../lib/settings/sso-api";
import {
  EMPTY_DRAFT,
  draftOf,
  parseRoleRules,
  providerBody,
  providerStatus,
  type ProviderDraft,
} from "../../lib/settings/sso-form";
import { ConfirmButton } from "./settings-confirm-button";
import { TextField } from "../ui/text-field";
import { ErrorAlert } from "../ui/error-alert";

const CHANGED = [queryKeys.sso, queryKeys.audit];

/** The organisation's identity providers, what each needs to know about Throng, and the form that adds or changes one. */
export function SsoProviders({ settings, manages }: { settings: SsoSettings; manages: boolean }) {
  const [editing, setEditing] = useState<SsoProviderView | null>(null);
  return (
    <section className="settings-section" aria-labelledby="sso-providers-title">
      <h2 id="sso-providers-title">Identity providers</h2>
      {settings.providers.length === 0 ? (
        <div className="empty" data-testid="sso-providers-empty">
          <strong>No identity provider yet.</strong>
          {manages ? "Verify a domain, then add your provider below." : "An admin adds one."}
        </div>
      ) : (
        settings.providers.map((provider) => (
          <ProviderCard
            key={provider.id}
            provider={provider}
            settings={settings}
            manages={manages}
            onEdit={() => setEditing(provider)}
          />
        ))
      )}
      {manages && <ProviderForm key={editing?.id ?? "new"} editing={editing} onDone={() => setEditing(null)} />}
    </section>
  );
}

function ProviderCard({
  provider,
  settings,
  manages,
  onEdit,
}: {
  provider: SsoProviderView;
  settings: SsoSettings;
  manages: boolean;
  onEdit: () => void;
}) {
  const status = providerStatus(provider, settings.domains);
  const toggle = useApiMutation(ssoApi.setProviderEnabled, CHANGED);
  const remove = useApiMutation(ssoApi.removeProvider, CHANGED);
  const sp = provider.serviceProvider;
  return (
    <article
      className="panel settings-section"
      data-testid="sso-provider"
      data-provider-name={provider.name}
      aria-label={`${provider.name} (${provider.protocol.toUpperCase()})`}
    >
      <div className="section-head">
        <h3>
          {provider.name} <span className="muted">{provider.protocol === "oidc" ? "OpenID Connect" : "SAML 2.0"}</span>
        </h3>
        <span className={status.active ? "status-note" : "muted"} data-testid="sso-provider-status">
          {status.text}
        </span>
      </div>
      <dl className="summary-grid sso-provider-facts">
        {provider.oidc && (
          <>
            <dt>Issuer</dt>
            <dd>
              <code>{provider.issuer}</code>
            </dd>
            <dt>Client ID</dt>
            <dd>
              <code>{provider.oidc.clientId}</code> (secret {provider.oidc.clientSecret}, never shown)
            </dd>
            <dt>Scopes</dt>
            <dd>{provider.oidc.scopes.join(" ")}</dd>
            <dt>Redirect URI to register</dt>
            <dd>
              <code data-testid="sso-redirect-uri">{sp.redirectUri}</code>
            </dd>
          </>
        )}
        {provider.saml && (
          <>
            <dt>IdP entity ID</dt>
            <dd>
              <code>{provider.saml.entityId}</code>
            </dd>
            <dt>Signing certificate</dt>
            <dd>
              {provider.saml.certificateSha256 ? `SHA-256 ${provider.saml.certificateSha256.slice(0, 23)}…` : "none"}
              {provider.saml.certificateExpires && `, expires ${provider.saml.certificateExpires.slice(0, 10)}`}
              {"; assertions must be signed"}
            </dd>
            <dt>ACS URL to register</dt>
            <dd>
              <code data-testid="sso-acs-url">{sp.acsUrl}</code>
            </dd>
            <dt>SP entity ID (audience)</dt>
            <dd>
              <code data-testid="sso-entity-id">{sp.entityId}</code>
            </dd>
          </>
        )}
        <dt>Roles</dt>
        <dd data-testid="sso-provider-roles">
          {provider.roleRules.length && provider.roleClaim
            ? `${provider.roleRules.map((r) => `${provider.roleClaim} has “${r.value}” → ${r.role}`).join("; ")}; anyone else → ${provider.defaultRole}`
            : `everyone joins as ${provider.defaultRole}`}
        </dd>
      </dl>
      {manages && (
        <>
          {(toggle.failure ?? remove.failure) && (
            <p className="alert" role="alert">
              {toggle.failure ?? remove.failure}
            </p>
          )}
          <div className="row-actions">
            <button className="button small" type="button" onClick={onEdit} aria-label={`Change ${provider.name}`}>
              Change
            </button>
            <button
              className="button small"
              type="button"
              disabled={toggle.isPending}
              onClick={() => toggle.mutate({ id: provider.id, enabled: !provider.enabled })}
              data-testid="toggle-sso-provider"
            >
              {provider.enabled ? "Turn off" : "Turn on"}
            </button>
            <ConfirmButton
              label="Remove"
              accessibleLabel={`Remove ${provider.name}`}
              title={`Remove ${provider.name}?`}
              confirmLabel="Remove provider"
              onConfirm={() => remove.mutateAsync(provider.id)}
            >
              <p>
                Nobody signs in through {provider.name} any more; sessions opened through it run to their end. Its
                settings are gone: to pause it instead, turn it off.
              </p>
            </ConfirmButton>
          </div>
        </>
      )}
    </article>
  );
}

function ProviderForm({ editing, onDone }: { editing: SsoProviderView | null; onDone: () => void }) {
  const [draft, setDraft] = useState<ProviderDraft>(editing ? draftOf(editing) : EMPTY_DRAFT);
  const [rulesError, setRulesError] = useState<string | null>(null);
  const add = useApiMutation(ssoApi.addProvider, CHANGED);
  const change = useApiMutation(ssoApi.changeProvider, CHANGED);
  const saving = editing ? change : add;
  const set = (field: keyof ProviderDraft) => (value: string) => setDraft((d) => ({ ...d, [field]: value }));
  const fieldError = (name: string) =>
    saving.fieldErrors[name] ?? Object.entries(saving.fieldErrors).find(([path]) => path.startsWith(`${name}.`))?.[1];

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const { rules, error } = parseRoleRules(draft.roleRules);
    setRulesError(error);
    if (error) return;
    const body = providerBody(draft, rules);
    const done = {
      onSuccess: () => {
        setDraft(EMPTY_DRAFT);
        onDone();
      },
    };
    if (editing) change.mutate({ id: editing.id, body }, done);
    else add.mutate(body, done);
  }

  return (
    <form
      className="settings-form panel"
      onSubmit={submit}
      noValidate
      aria-labelledby="sso-provider-form-title"
      data-testid="sso-provider-form"
    >
      <h3 id="sso-provider-form-title">{editing ? `Change ${editing.name}` : "Add an identity provider"}</h3>
      <fieldset className="plain-fieldset" disabled={Boolean(editing)}>
        <legend>Protocol</legend>
        <label>
          <input
            type="radio"
            name="sso-protocol"
            checked={draft.protocol === "oidc"}
            onChange={() => set("protocol")("oidc")}
          />{" "}
          OpenID Connect
        </label>{" "}
        <label>
          <input
            type="radio"
            name="sso-protocol"
            checked={draft.protocol === "saml"}
            onChange={() => set("protocol")("saml")}
          />{" "}
          SAML 2.0
        </label>
      </fieldset>
      <div className="form-grid">
        <TextField
          id="sso-name"
          label="Name"
          value={draft.name}
          onChange={set("name")}
          hint="As people will see it, e.g. Okta"
          error={fieldError("name")}
        />
        <TextField
          id="sso-domains"
          label="Email domains"
          value={draft.domains}
          onChange={set("domains")}
          hint="Comma-separated; each verified above"
          error={fieldError("domains")}
        />
        {draft.protocol === "oidc" ? (
          <>
            <TextField
              id="sso-issuer"
              label="Issuer URL"
              value={draft.issuer}
              onChange={set("issuer")}
              inputMode="url"
              hint="Throng reads ISSUER/.well-known/openid-configuration"
              error={fieldError("issuer")}
            />
            <TextField
              id="sso-client-id"
              label="Client ID"
              value={draft.clientId}
              onChange={set("clientId")}
              autoComplete="off"
              error={fieldError("clientId")}
            />
            <TextField
              id="sso-client-secret"
              label="Client secret"
              type="password"
              value={draft.clientSecret}
              onChange={set("clientSecret")}
              autoComplete="new-password"
              hint={editing ? "Leave empty to keep the stored secret" : "Stored encrypted, never shown again"}
              error={fieldError("clientSecret")}
            />
            <TextField
              id="sso-scopes"
              label="Scopes"
              value={draft.scopes}
              onChange={set("scopes")}
              hint="Space-separated"
              error={fieldError("scopes")}
            />
          </>
        ) : (
          <>
            <TextField
              id="sso-metadata-url"
              label="IdP metadata URL"
              value={draft.metadataUrl}
              onChange={set("metadataUrl")}
              inputMode="url"
              hint="Or paste the metadata XML below"
              error={fieldError("metadataUrl")}
            />
            <div className="field">
              <label htmlFor="sso-metadata-xml">IdP metadata XML</label>
              <textarea
                id="sso-metadata-xml"
                value={draft.metadataXml}
                onChange={(e) => set("metadataXml")(e.target.value)}
                aria-invalid={fieldError("metadataXml") ? true : undefined}
              />
              {fieldError("metadataXml") && <p className="field-error">{fieldError("metadataXml")}</p>}
              <span className="hint">
                Must name a signing certificate: Throng accepts only signed assertions.
                {editing && " Paste it again if it was pasted before."}
              </span>
            </div>
          </>
        )}
        <TextField
          id="sso-role-claim"
          label={draft.protocol === "oidc" ? "Role claim" : "Role attribute"}
          value={draft.roleClaim}
          onChange={set("roleClaim")}
          hint="Where the provider sends groups or roles, e.g. groups"
          error={fieldError("roleClaim")}
        />
        <div className="field">
          <label htmlFor="sso-role-default">Everyone else joins as</label>
          <select id="sso-role-default" value={draft.defaultRole} onChange={(e) => set("defaultRole")(e.target.value)}>
            <option value="member">member</option>
            <option value="viewer">viewer</option>
            <option value="admin">admin</option>
          </select>
        </div>
      </div>
      <div className="field">
        <label htmlFor="sso-role-rules">Role rules</label>
        <textarea
          id="sso-role-rules"
          value={draft.roleRules}
          onChange={(e) => set("roleRules")(e.target.value)}
          aria-invalid={rulesError ? true : undefined}
          aria-describedby="sso-role-rules-hint"
          style={{ minHeight: "5rem" }}
        />
        {(rulesError ?? fieldError("roleRules")) && (
          <p className="field-error">{rulesError ?? fieldError("roleRules")}</p>
        )}
        <span className="hint" id="sso-role-rules-hint">
          One a line, first match wins: <code>group = role</code>, e.g. <code>throng-admins = admin</code>. Applied when
          someone joins; owners are never made by a rule.
        </span>
      </div>
      <ErrorAlert error={saving.failure} />
      <div className="row-actions" style={{ justifyContent: "flex-start" }}>
        <button className="button primary" type="submit" disabled={saving.isPending} data-testid="save-sso-provider">
          {saving.isPending ? "Saving…" : editing ? "Save changes" : "Add provider"}
        </button>
        {editing && (
          <button className="button" type="button" onClick={onDone}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
