"use client";

import { Fragment, useState, type FormEvent } from "react";
import type { SsoProviderView } from "@throng/protocol/sso";
import { useApiMutation } from "../../hooks/use-api-mutation";
import { SSO_CHANGED, ssoApi } from "../../lib/settings/sso-api";
import { EMPTY_DRAFT, draftOf, parseRoleRules, providerBody, type ProviderDraft } from "../../lib/settings/sso-form";
import { TextField } from "../ui/text-field";
import { ErrorAlert } from "../ui/error-alert";
import { BusyButton } from "../ui/busy-button";

/** The draft's fields typed into a one-line text input. */
type TextDraftField = Exclude<keyof ProviderDraft, "protocol" | "defaultRole" | "metadataXml" | "roleRules">;

const PROTOCOLS: { id: ProviderDraft["protocol"]; label: string }[] = [
  { id: "oidc", label: "OpenID Connect" },
  { id: "saml", label: "SAML 2.0" },
];

/** Adds an identity provider, or changes `editing`: OpenID Connect or SAML, its domains and its role rules. */
export function ProviderForm({ editing, onDone }: { editing: SsoProviderView | null; onDone: () => void }) {
  const [draft, setDraft] = useState<ProviderDraft>(editing ? draftOf(editing) : EMPTY_DRAFT);
  const [rulesError, setRulesError] = useState<string | null>(null);
  const add = useApiMutation(ssoApi.addProvider, SSO_CHANGED);
  const change = useApiMutation(ssoApi.changeProvider, SSO_CHANGED);
  const saving = editing ? change : add;
  const set = (field: keyof ProviderDraft) => (value: string) => setDraft((d) => ({ ...d, [field]: value }));
  const fieldError = (name: string) =>
    saving.fieldErrors[name] ?? Object.entries(saving.fieldErrors).find(([path]) => path.startsWith(`${name}.`))?.[1];
  /** A text field's value, change and refusal, bound to one field of the draft. */
  const bound = (name: TextDraftField) => ({ value: draft[name], onChange: set(name), error: fieldError(name) });

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
        {PROTOCOLS.map(({ id, label }) => (
          <Fragment key={id}>
            <label>
              <input
                type="radio"
                name="sso-protocol"
                checked={draft.protocol === id}
                onChange={() => set("protocol")(id)}
              />{" "}
              {label}
            </label>{" "}
          </Fragment>
        ))}
      </fieldset>
      <div className="form-grid">
        <TextField id="sso-name" label="Name" hint="As people will see it, e.g. Okta" {...bound("name")} />
        <TextField
          id="sso-domains"
          label="Email domains"
          hint="Comma-separated; each verified above"
          {...bound("domains")}
        />
        {draft.protocol === "oidc" ? (
          <>
            <TextField
              id="sso-issuer"
              label="Issuer URL"
              inputMode="url"
              hint="Throng reads ISSUER/.well-known/openid-configuration"
              {...bound("issuer")}
            />
            <TextField id="sso-client-id" label="Client ID" autoComplete="off" {...bound("clientId")} />
            <TextField
              id="sso-client-secret"
              label="Client secret"
              type="password"
              autoComplete="new-password"
              hint={editing ? "Leave empty to keep the stored secret" : "Stored encrypted, never shown again"}
              {...bound("clientSecret")}
            />
            <TextField id="sso-scopes" label="Scopes" hint="Space-separated" {...bound("scopes")} />
          </>
        ) : (
          <>
            <TextField
              id="sso-metadata-url"
              label="IdP metadata URL"
              inputMode="url"
              hint="Or paste the metadata XML below"
              {...bound("metadataUrl")}
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
          hint="Where the provider sends groups or roles, e.g. groups"
          {...bound("roleClaim")}
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
        <BusyButton busy={saving.isPending} busyText="Saving…" testId="save-sso-provider">
          {editing ? "Save changes" : "Add provider"}
        </BusyButton>
        {editing && (
          <button className="button" type="button" onClick={onDone}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
