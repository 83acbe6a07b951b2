"use client";

import { useRef, useState, type FormEvent } from "react";
import { PutSecret, SecretName } from "@throng/protocol/secrets";
import { useApiMutation } from "../../hooks/use-api-mutation";
import { useApiQuery } from "../../hooks/use-api-query";
import { queryKeys } from "../../lib/shared/query-keys";
import { secretsApi } from "../../lib/settings/secrets-api";
import { forRole } from "./settings-nav";
import { SecretList } from "./secret-list";
import { fieldBinder, TextField } from "../ui/text-field";
import { ErrorAlert } from "../ui/error-alert";
import { SettingsListSection } from "./settings-list-section";
import { BusyButton } from "../ui/busy-button";

/** Organisation secrets: add or replace one (its value is never shown again), list them by name, delete. Admins and owners. */
export const SecretSettings = forRole("secret.manage", "Managing secrets", SecretManager);

function SecretManager() {
  const [name, setName] = useState("");
  const [value, setValue] = useState("");
  const [problems, setProblems] = useState<{ name?: string; value?: string }>({});
  const [saved, setSaved] = useState<string | null>(null);
  const valueField = useRef<HTMLDivElement>(null);
  const secrets = useApiQuery(queryKeys.secrets, (signal) => secretsApi.list(signal));
  const saving = useApiMutation(secretsApi.put, [queryKeys.secrets, queryKeys.audit]);
  const exists = secrets.data?.some((secret) => secret.name === name.trim()) ?? false;
  // What the form's own check found before sending, else what the API refused.
  const errors = { name: problems.name ?? saving.fieldErrors.name, value: problems.value ?? saving.fieldErrors.value };
  const setters = { name: setName, value: setValue };
  const field = fieldBinder({ name, value }, (key) => setters[key], errors, "secret-");

  function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    saving.reset();
    setSaved(null);
    const secretName = name.trim();
    const found = {
      ...(SecretName.safeParse(secretName).success
        ? {}
        : { name: SecretName.safeParse(secretName).error?.issues[0]?.message }),
      ...(PutSecret.safeParse({ value }).success
        ? {}
        : { value: PutSecret.safeParse({ value }).error?.issues[0]?.message }),
    };
    setProblems(found);
    if (found.name || found.value) {
      document.getElementById(found.name ? "secret-name" : "secret-value")?.focus();
      return;
    }
    saving.mutate(
      { name: secretName, value },
      {
        onSuccess: (secret) => {
          setSaved(secret.name);
          setName("");
          setValue("");
        },
      },
    );
  }

  /** A row's "Replace value": the form takes its name, and the value field the focus. */
  function replace(secretName: string) {
    setName(secretName);
    setValue("");
    setSaved(null);
    valueField.current?.scrollIntoView({ block: "center" });
    document.getElementById("secret-value")?.focus();
  }

  return (
    <>
      <section className="settings-section panel" aria-labelledby="new-secret-title">
        <h2 id="new-secret-title">Add or replace a secret</h2>
        <p className="muted">
          Passwords, tokens and keys a plan needs, kept out of its text: write <code>{"{{secrets.NAME}}"}</code> in a
          message, a session or http step, a header or a WebSocket URL. Values are stored encrypted and never shown
          again, not even here; an agent gets only those its run uses.
        </p>
        {saved && (
          <p className="status-note" role="status" data-testid="secret-saved">
            Saved {saved}. Plans use it as <code>{`{{secrets.${saved}}}`}</code>; its value is not shown again.
          </p>
        )}
        <form className="settings-form" onSubmit={save} noValidate>
          <div className="form-grid">
            <TextField
              {...field("name")}
              label="Name"
              autoComplete="off"
              hint={
                exists
                  ? `${name.trim()} exists: saving replaces its value.`
                  : "Letters, digits and _, e.g. REDIS_PASSWORD."
              }
            />
            <div ref={valueField}>
              <TextField
                {...field("value")}
                label="Value"
                type="password"
                autoComplete="new-password"
                hint="Never shown again once saved."
              />
            </div>
          </div>
          <ErrorAlert error={saving.failure} />
          <BusyButton busy={saving.isPending} busyText="Saving…" testId="save-secret">
            {exists ? "Replace value" : "Add secret"}
          </BusyButton>
        </form>
      </section>
      <SettingsListSection id="secrets" title="Secrets" list={secrets} loading="Loading secrets…">
        {(data) => <SecretList secrets={data} onReplace={replace} />}
      </SettingsListSection>
    </>
  );
}
