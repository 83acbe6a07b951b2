"use client";

import { useState } from "react";
import type { SsoProviderView, SsoSettings } from "@throng/protocol/sso";
import { useApiMutation } from "../../hooks/use-api-mutation";
import { SSO_CHANGED, ssoApi } from "../../lib/settings/sso-api";
import { providerStatus } from "../../lib/settings/sso-form";
import { ConfirmButton } from "./settings-confirm-button";
import { ProviderForm } from "./sso-provider-form";

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
  const toggle = useApiMutation(ssoApi.setProviderEnabled, SSO_CHANGED);
  const remove = useApiMutation(ssoApi.removeProvider, SSO_CHANGED);
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
