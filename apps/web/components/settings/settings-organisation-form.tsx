"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { OrgSettings } from "@throng/protocol/orgs";
import { useApiQuery } from "../../hooks/use-api-query";
import { ApiError, errorMessage } from "../../lib/shared/api-client";
import { formatDuration, formatInteger } from "../../lib/shared/format";
import { queryKeys } from "../../lib/shared/query-keys";
import { settingsApi } from "../../lib/settings/settings-api";
import {
  draftFromSettings,
  errorsFromServer,
  settingsFromDraft,
  type OrgSettingsDraft,
  type OrgSettingsErrors,
  type OrgSettingsField,
} from "../../lib/settings/settings-org-form";
import { can } from "../../lib/shared/settings-permissions";
import { fieldBinder, TextField } from "../ui/text-field";
import { useMe } from "../shell/session-gate";
import { ErrorAlert } from "../ui/error-alert";
import { BusyButton } from "../ui/busy-button";

/** The target allow-list and caps every run of the organisation must stay within. */
export function OrganisationSettings() {
  const { data, error } = useApiQuery(queryKeys.orgSettings, (signal) => settingsApi.getSettings(signal));
  return (
    <section className="settings-section panel" aria-labelledby="org-settings-title">
      <h2 id="org-settings-title">Targets and limits</h2>
      <ErrorAlert error={error} />
      {data ? <SettingsForm saved={data} /> : !error && <p className="loading">Loading settings…</p>}
    </section>
  );
}

function SettingsForm({ saved }: { saved: OrgSettings }) {
  const { role } = useMe();
  const editable = can(role, "settings.manage");
  const [draft, setDraft] = useState<OrgSettingsDraft>(() => draftFromSettings(saved));
  const [errors, setErrors] = useState<OrgSettingsErrors>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const queryClient = useQueryClient();
  // The API answers with what it stored: that is the cached settings now, no need to ask again.
  const saving = useMutation({
    mutationFn: (settings: OrgSettings) => settingsApi.saveSettings(settings),
    onSuccess: (stored) => queryClient.setQueryData(queryKeys.orgSettings, stored),
  });
  const update = (field: OrgSettingsField) => (value: string) => {
    setDraft((current) => ({ ...current, [field]: value }));
    setStatus(null);
  };

  function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFailure(null);
    setStatus(null);
    const built = settingsFromDraft(draft);
    if (!built.ok) return showErrors(built.errors);
    saving.mutate(built.settings, {
      onSuccess: (stored) => {
        setDraft(draftFromSettings(stored));
        setErrors({});
        setStatus("Saved.");
      },
      onError: (error) => {
        const fromServer = error instanceof ApiError ? errorsFromServer(error.fields, draft.allowList) : {};
        if (Object.keys(fromServer).length) showErrors(fromServer);
        else setFailure(errorMessage(error));
      },
    });
  }

  function showErrors(found: OrgSettingsErrors) {
    setErrors(found);
    const first = (["allowList", "maxClients", "maxDurationSec"] as const).find((field) => found[field]);
    if (first) requestAnimationFrame(() => document.getElementById(first)?.focus());
  }

  const field = fieldBinder(draft, update, errors);
  const clients = Number(draft.maxClients.replace(/[,_\s]/g, ""));
  const seconds = Number(draft.maxDurationSec.replace(/[,_\s]/g, ""));
  return (
    <form className="settings-form" onSubmit={save} noValidate data-testid="org-settings-form">
      {!editable && (
        <p className="muted" data-testid="settings-read-only">
          Your role ({role ?? "viewer"}) may read these settings; admins and owners change them.
        </p>
      )}
      <div className="field">
        <label htmlFor="allowList">Target allow-list</label>
        <textarea
          id="allowList"
          name="allowList"
          value={draft.allowList}
          onChange={(event) => update("allowList")(event.target.value)}
          disabled={!editable}
          spellCheck={false}
          aria-invalid={errors.allowList ? true : undefined}
          aria-describedby={`allowList-hint${errors.allowList ? " allowList-error" : ""}`}
          placeholder={"127.0.0.1:7070\n*.example.com\n[::1]:9000"}
        />
        <span className="hint" id="allowList-hint">
          One rule per line: <code>host</code>, <code>host:port</code>, <code>*.domain</code> or{" "}
          <code>[ipv6]:port</code>. Empty: runs may target any host.
        </span>
        {errors.allowList && (
          <p className="field-error" id="allowList-error" data-testid="field-error-allowList">
            {errors.allowList}
          </p>
        )}
      </div>
      <fieldset className="plain-fieldset" disabled={!editable}>
        <div className="form-grid">
          <TextField
            {...field("maxClients")}
            label="Max clients per run"
            inputMode="numeric"
            unit="clients"
            hint={
              Number.isFinite(clients) && clients > 0
                ? `${formatInteger(clients)} clients across all agents.`
                : undefined
            }
          />
          <TextField
            {...field("maxDurationSec")}
            label="Max run duration"
            inputMode="numeric"
            unit="s"
            hint={Number.isFinite(seconds) && seconds > 0 ? `${formatDuration(seconds)}.` : undefined}
          />
        </div>
      </fieldset>
      <ErrorAlert error={failure} />
      {editable && (
        <div className="form-actions">
          <BusyButton busy={saving.isPending} busyText="Saving…" testId="save-settings">
            Save settings
          </BusyButton>
          <span className="status-note" role="status" data-testid="settings-status">
            {status}
          </span>
        </div>
      )}
    </form>
  );
}
