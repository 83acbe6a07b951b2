"use client";

import { useState, type FormEvent } from "react";
import type { SsoDomainView, SsoSettings as Settings } from "@throng/protocol/sso";
import { useApiMutation } from "../../hooks/use-api-mutation";
import { useApiQuery } from "../../hooks/use-api-query";
import { formatDateTime } from "../../lib/shared/format";
import { queryKeys } from "../../lib/shared/query-keys";
import { can } from "../../lib/shared/settings-permissions";
import { SSO_CHANGED, ssoApi } from "../../lib/settings/sso-api";
import { CopyButton } from "../ui/copy-button";
import { DataTable } from "../ui/data-table";
import { ConfirmButton } from "./settings-confirm-button";
import { useMe } from "../shell/session-gate";
import { SsoProviders } from "./sso-providers";
import { TextField } from "../ui/text-field";
import { BusyButton } from "../ui/busy-button";
import { ErrorAlert } from "../ui/error-alert";

/**
 * Settings → Single sign-on: email domains proven by DNS, identity providers (OIDC, SAML), Require SSO and how long
 * sessions last. Admins and owners change it; everyone else in the organisation reads it.
 */
export function SsoSettings() {
  const manages = can(useMe().role, "settings.manage");
  const settings = useApiQuery(queryKeys.sso, (signal) => ssoApi.settings(signal));
  return (
    <>
      <p className="muted">
        People of your company sign in through its identity provider (Okta, Entra ID, Google Workspace, Keycloak…) with
        “Sign in with SSO” and their work email, and join this organisation on their first sign-in with the role your
        rules give them. Set-up per provider: docs/sso.md.
        {!manages && " Only admins and owners change these settings."}
      </p>
      <ErrorAlert error={settings.error} />
      {settings.data ? (
        <>
          <Requirement settings={settings.data} manages={manages} />
          <Domains domains={settings.data.domains} manages={manages} />
          <SsoProviders settings={settings.data} manages={manages} />
        </>
      ) : (
        !settings.error && <p className="loading">Loading single sign-on settings…</p>
      )}
    </>
  );
}

function Requirement({ settings, manages }: { settings: Settings; manages: boolean }) {
  const change = useApiMutation(ssoApi.setRequirement, SSO_CHANGED);
  return (
    <section className="settings-section panel" aria-labelledby="sso-requirement-title">
      <h2 id="sso-requirement-title">Require SSO</h2>
      <p data-testid="sso-requirement">
        {settings.requireSso ? <strong>SSO is required.</strong> : <strong>SSO is not required.</strong>}{" "}
        {settings.requireSso
          ? "Members and admins sign in only through the identity provider: their password is refused, and a session not opened through it stops working."
          : "Members may sign in with a password or with SSO."}{" "}
        Owners keep their password as a break-glass way in (each such sign-in is in the audit log); API tokens keep
        working.
      </p>
      <p className="muted" data-testid="sso-session-lifetime">
        A session opened through SSO lasts {settings.ssoSessionHours} hours from its sign-in, whatever happens at the
        identity provider: signing out there, or being removed there, ends nothing in Throng before then (remove the
        person here too to end it at once). A password session lasts {settings.passwordSessionDays} days from its last
        use.
      </p>
      {manages && (
        <>
          <ErrorAlert error={change.failure} />
          <button
            className="button"
            type="button"
            disabled={change.isPending}
            onClick={() => change.mutate(!settings.requireSso)}
            data-testid="toggle-require-sso"
          >
            {settings.requireSso ? "Stop requiring SSO" : "Require SSO"}
          </button>
        </>
      )}
    </section>
  );
}

function Domains({ domains, manages }: { domains: SsoDomainView[]; manages: boolean }) {
  const [domain, setDomain] = useState("");
  const add = useApiMutation(ssoApi.addDomain, SSO_CHANGED);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    add.mutate(domain.trim(), { onSuccess: () => setDomain("") });
  }
  return (
    <section className="settings-section" aria-labelledby="sso-domains-title">
      <h2 id="sso-domains-title">Domains</h2>
      <p className="muted">
        Prove each email domain with a DNS TXT record, then press Check. People whose email is in a verified domain can
        sign in through this organisation&apos;s provider; one domain belongs to one organisation.
      </p>
      {domains.length === 0 ? (
        <div className="empty" data-testid="sso-domains-empty">
          <strong>No domains yet.</strong>
          {manages ? "Add your company's email domain below." : "An admin adds them."}
        </div>
      ) : (
        <DataTable
          caption="Email domains"
          columns={["Domain", "Status", "TXT record to publish", ""]}
          testId="sso-domains"
        >
          {domains.map((d) => (
            <DomainRow key={d.domain} domain={d} manages={manages} />
          ))}
        </DataTable>
      )}
      {manages && (
        <form className="settings-form" onSubmit={submit} noValidate>
          <TextField
            id="sso-domain"
            label="Email domain"
            value={domain}
            onChange={setDomain}
            autoComplete="off"
            hint="e.g. example.com (no @, no https://)"
            error={add.fieldErrors.domain}
          />
          <ErrorAlert error={add.failure} />
          <button className="button primary" type="submit" disabled={add.isPending} data-testid="add-sso-domain">
            Add domain
          </button>
        </form>
      )}
    </section>
  );
}

function DomainRow({ domain: d, manages }: { domain: SsoDomainView; manages: boolean }) {
  const verify = useApiMutation(ssoApi.verifyDomain, SSO_CHANGED);
  const remove = useApiMutation(ssoApi.removeDomain, SSO_CHANGED);
  return (
    <tr data-testid="sso-domain-row" data-domain={d.domain}>
      <td>
        <strong>{d.domain}</strong>
      </td>
      <td>
        {d.verified
          ? `Verified${d.verifiedAt ? ` ${formatDateTime(d.verifiedAt)}` : ""}${d.verifiedBy ? ` by ${d.verifiedBy}` : ""}`
          : "Not verified yet"}
      </td>
      <td>
        {d.verified ? (
          "—"
        ) : (
          <dl className="summary-grid">
            <dt>Name</dt>
            <dd>
              <code data-testid="sso-txt-name">{d.txtName}</code> <CopyButton text={d.txtName} label="Copy name" />
            </dd>
            <dt>Value</dt>
            <dd>
              <code data-testid="sso-txt-value">{d.txtValue}</code> <CopyButton text={d.txtValue} label="Copy value" />
            </dd>
          </dl>
        )}
        {verify.failure && (
          <p className="row-error" role="alert">
            {verify.failure}
          </p>
        )}
      </td>
      <td>
        {manages && (
          <div className="row-actions">
            {!d.verified && (
              <BusyButton
                className="button small"
                onClick={() => verify.mutate(d.domain)}
                busy={verify.isPending}
                busyText="Checking…"
                label={`Check the TXT record of ${d.domain}`}
                testId="verify-sso-domain"
              >
                Check
              </BusyButton>
            )}
            <ConfirmButton
              label="Remove"
              accessibleLabel={`Remove domain ${d.domain}`}
              title={`Remove ${d.domain}?`}
              confirmLabel="Remove domain"
              onConfirm={() => remove.mutateAsync(d.domain)}
            >
              <p>
                People of {d.domain} can no longer sign in with SSO here. A provider that still names it must drop it
                first.
              </p>
            </ConfirmButton>
          </div>
        )}
      </td>
    </tr>
  );
}
