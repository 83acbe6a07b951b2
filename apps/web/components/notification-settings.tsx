"use client";

import { useState, type FormEvent } from "react";
import type { NotificationEvent, NotificationKind } from "@throng/protocol/notifications";
import { useApiData } from "../hooks/use-api-data";
import { errorMessage } from "../lib/api-client";
import { fieldErrorsOf } from "../lib/field-errors";
import { formatDateTime } from "../lib/format";
import { notificationsApi } from "../lib/notifications-api";
import { can } from "../lib/settings-permissions";
import { DataTable } from "./data-table";
import { NotificationLog } from "./notification-log";
import { useMe } from "./session-gate";
import { TextField } from "./text-field";

const KINDS: { id: NotificationKind; label: string; hint: string }[] = [
  { id: "slack", label: "Slack", hint: "A Slack incoming-webhook URL (https://hooks.slack.com/services/...): a one-line message per run." },
  { id: "webhook", label: "Webhook", hint: "Any URL that takes a JSON POST: { event, run: { id, planName, status, outcome, error, url }, text }." },
];
const EVENTS: { id: NotificationEvent; label: string }[] = [
  { id: "failed", label: "A run does not pass (failed, aborted, or a failing verdict)" },
  { id: "finished", label: "Every run that ends" },
];

/** Where run notifications go (Slack or a webhook), a test button for each, and the log of what was sent. */
export function NotificationSettings() {
  const manages = can(useMe().role, "settings.manage");
  const channels = useApiData((signal) => notificationsApi.listChannels(signal));
  const log = useApiData((signal) => notificationsApi.listDeliveries(signal), 3000);
  const [failure, setFailure] = useState<string | null>(null);

  async function act(action: () => Promise<unknown>) {
    setFailure(null);
    try {
      await action();
      channels.reload();
      log.reload();
    } catch (error) {
      setFailure(errorMessage(error));
    }
  }

  return (
    <>
      {manages && <NewChannelForm onCreated={channels.reload} />}
      <section className="settings-section" aria-labelledby="channels-title">
        <h2 id="channels-title">Channels</h2>
        {(channels.error || failure) && (
          <p className="alert" role="alert">
            {channels.error ?? failure}
          </p>
        )}
        {channels.data && channels.data.length === 0 && <p className="empty" data-testid="channels-empty">No channels yet: runs end without telling anyone.</p>}
        {channels.data && channels.data.length > 0 && (
          <DataTable caption="Notification channels" columns={["Channel", "Sends to", "When", "Added", ""]} testId="channel-list">
            {channels.data.map((channel) => (
              <tr key={channel.id} data-testid="channel-row" data-channel-id={channel.id}>
                <td>
                  <strong>{channel.name}</strong>
                  <div className="muted small">{channel.kind === "slack" ? "Slack" : "Webhook"}</div>
                </td>
                <td>
                  <code>{channel.host}</code>
                </td>
                <td>{channel.events.map((event) => (event === "failed" ? "runs that do not pass" : "every run")).join(", ")}</td>
                <td>{formatDateTime(channel.createdAt)}</td>
                <td className="actions">
                  {manages && (
                    <>
                      <button className="button small" type="button" onClick={() => act(() => notificationsApi.testChannel(channel.id))} data-testid="test-channel">
                        Send test
                      </button>
                      <button className="button small danger" type="button" onClick={() => act(() => notificationsApi.removeChannel(channel.id))} aria-label={`Remove ${channel.name}`}>
                        Remove
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
      <NotificationLog deliveries={log.data} error={log.error} />
    </>
  );
}

function NewChannelForm({ onCreated }: { onCreated: () => void }) {
  const [kind, setKind] = useState<NotificationKind>("slack");
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<NotificationEvent[]>(["failed"]);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFailure(null);
    setFieldErrors({});
    setPending(true);
    try {
      await notificationsApi.createChannel({ kind, name: name.trim(), url: url.trim(), events });
      setName("");
      setUrl("");
      onCreated();
    } catch (error) {
      const fields = fieldErrorsOf(error);
      if (fields) setFieldErrors(fields);
      else setFailure(errorMessage(error));
    } finally {
      setPending(false);
    }
  }

  const toggle = (id: NotificationEvent, on: boolean) => setEvents((current) => (on ? [...current, id] : current.filter((e) => e !== id)));
  return (
    <section className="settings-section panel" aria-labelledby="new-channel-title">
      <h2 id="new-channel-title">Add a notification channel</h2>
      <p className="muted">When a run ends, the workers post to each channel that wants it, retrying an endpoint that is down.</p>
      <form className="settings-form" onSubmit={create} noValidate>
        <div className="form-grid">
          <div className="field">
            <label htmlFor="channel-kind">Kind</label>
            <select id="channel-kind" value={kind} onChange={(event) => setKind(event.target.value as NotificationKind)} aria-describedby="channel-kind-hint">
              {KINDS.map((option) => (
                <option key={option.id} value={option.id}>
                  {option.label}
                </option>
              ))}
            </select>
            <p className="hint" id="channel-kind-hint">
              {KINDS.find((option) => option.id === kind)!.hint}
            </p>
          </div>
          <TextField id="channel-name" label="Name" value={name} onChange={setName} error={fieldErrors.name} hint="What it is, e.g. #load-tests." />
          <TextField id="channel-url" label="URL" type="url" inputMode="url" value={url} onChange={setUrl} error={fieldErrors.url} hint="Kept secret: only its host is shown after saving." />
        </div>
        <div className="field">
          <fieldset className="plain-fieldset">
            <legend>Notify when</legend>
            {EVENTS.map((option) => (
              <div className="checkbox" key={option.id}>
                <input id={`channel-event-${option.id}`} type="checkbox" checked={events.includes(option.id)} onChange={(event) => toggle(option.id, event.target.checked)} />
                <label htmlFor={`channel-event-${option.id}`}>{option.label}</label>
              </div>
            ))}
            {fieldErrors.events && <p className="field-error">{fieldErrors.events}</p>}
          </fieldset>
        </div>
        {failure && (
          <p className="alert" role="alert">
            {failure}
          </p>
        )}
        <button className="button primary" type="submit" disabled={pending} data-testid="create-channel">
          {pending ? "Adding…" : "Add channel"}
        </button>
      </form>
    </section>
  );
}
