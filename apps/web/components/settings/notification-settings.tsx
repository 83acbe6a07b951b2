"use client";

import { useState, type FormEvent } from "react";
import type { NotificationEvent, NotificationKind } from "@throng/protocol/notifications";
import { useApiMutation } from "../../hooks/use-api-mutation";
import { useApiQuery } from "../../hooks/use-api-query";
import { errorMessage } from "../../lib/shared/api-client";
import { formatDateTime } from "../../lib/shared/format";
import { notificationsApi } from "../../lib/settings/notifications-api";
import { queryKeys } from "../../lib/shared/query-keys";
import { can } from "../../lib/shared/settings-permissions";
import { DataTable } from "../ui/data-table";
import { NotificationLog } from "./notification-log";
import { useMe } from "../shell/session-gate";
import { fieldBinder, TextField, UrlField } from "../ui/text-field";
import { ErrorAlert } from "../ui/error-alert";
import { SelectField } from "../ui/select-field";
import { BusyButton } from "../ui/busy-button";

const KINDS: { id: NotificationKind; label: string; hint: string }[] = [
  {
    id: "slack",
    label: "Slack",
    hint: "A Slack incoming-webhook URL (https://hooks.slack.com/services/...): a one-line message per run.",
  },
  {
    id: "webhook",
    label: "Webhook",
    hint: "Any URL that takes a JSON POST: { event, run: { id, planName, status, outcome, error, url }, text }.",
  },
];
const EVENTS: { id: NotificationEvent; label: string }[] = [
  { id: "failed", label: "A run does not pass (failed, aborted, or a failing verdict)" },
  { id: "finished", label: "Every run that ends" },
];

/** Where run notifications go (Slack or a webhook), a test button for each, and the log of what was sent. */
export function NotificationSettings() {
  const manages = can(useMe().role, "settings.manage");
  const channels = useApiQuery(queryKeys.notificationChannels, (signal) => notificationsApi.listChannels(signal));
  const log = useApiQuery(queryKeys.notificationDeliveries, (signal) => notificationsApi.listDeliveries(signal), {
    pollMs: 3000,
  });
  // A test adds a delivery, a removal takes the channel away: both lists are asked again.
  const acting = useApiMutation(
    (action: () => Promise<unknown>) => action(),
    [queryKeys.notificationChannels, queryKeys.notificationDeliveries],
  );
  const failure = acting.isError ? errorMessage(acting.error) : null;

  return (
    <>
      {manages && <NewChannelForm />}
      <section className="settings-section" aria-labelledby="channels-title">
        <h2 id="channels-title">Channels</h2>
        {(channels.error || failure) && (
          <p className="alert" role="alert">
            {channels.error ?? failure}
          </p>
        )}
        {channels.data && channels.data.length === 0 && (
          <p className="empty" data-testid="channels-empty">
            No channels yet: runs end without telling anyone.
          </p>
        )}
        {channels.data && channels.data.length > 0 && (
          <DataTable
            caption="Notification channels"
            columns={["Channel", "Sends to", "When", "Added", ""]}
            testId="channel-list"
          >
            {channels.data.map((channel) => (
              <tr key={channel.id} data-testid="channel-row" data-channel-id={channel.id}>
                <td>
                  <strong>{channel.name}</strong>
                  <div className="muted small">{channel.kind === "slack" ? "Slack" : "Webhook"}</div>
                </td>
                <td>
                  <code>{channel.host}</code>
                </td>
                <td>
                  {channel.events
                    .map((event) => (event === "failed" ? "runs that do not pass" : "every run"))
                    .join(", ")}
                </td>
                <td>{formatDateTime(channel.createdAt)}</td>
                <td className="actions">
                  {manages && (
                    <>
                      <button
                        className="button small"
                        type="button"
                        onClick={() => acting.mutate(() => notificationsApi.testChannel(channel.id))}
                        data-testid="test-channel"
                      >
                        Send test
                      </button>
                      <button
                        className="button small danger"
                        type="button"
                        onClick={() => acting.mutate(() => notificationsApi.removeChannel(channel.id))}
                        aria-label={`Remove ${channel.name}`}
                      >
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

function NewChannelForm() {
  const [kind, setKind] = useState<NotificationKind>("slack");
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<NotificationEvent[]>(["failed"]);
  const creating = useApiMutation(notificationsApi.createChannel, [queryKeys.notificationChannels]);
  const { fieldErrors, failure } = creating;
  const setters = { name: setName, url: setUrl };
  const field = fieldBinder({ name, url }, (key) => setters[key], fieldErrors, "channel-");

  function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    creating.mutate(
      { kind, name: name.trim(), url: url.trim(), events },
      {
        onSuccess: () => {
          setName("");
          setUrl("");
        },
      },
    );
  }

  const toggle = (id: NotificationEvent, on: boolean) =>
    setEvents((current) => (on ? [...current, id] : current.filter((e) => e !== id)));
  return (
    <section className="settings-section panel" aria-labelledby="new-channel-title">
      <h2 id="new-channel-title">Add a notification channel</h2>
      <p className="muted">
        When a run ends, the workers post to each channel that wants it, retrying an endpoint that is down.
      </p>
      <form className="settings-form" onSubmit={create} noValidate>
        <div className="form-grid">
          <SelectField
            id="channel-kind"
            label="Kind"
            value={kind}
            options={KINDS}
            onChange={setKind}
            hint={KINDS.find((option) => option.id === kind)!.hint}
          />
          <TextField {...field("name")} label="Name" hint="What it is, e.g. #load-tests." />
          <UrlField {...field("url")} hint="Kept secret: only its host is shown after saving." />
        </div>
        <div className="field">
          <fieldset className="plain-fieldset">
            <legend>Notify when</legend>
            {EVENTS.map((option) => (
              <div className="checkbox" key={option.id}>
                <input
                  id={`channel-event-${option.id}`}
                  type="checkbox"
                  checked={events.includes(option.id)}
                  onChange={(event) => toggle(option.id, event.target.checked)}
                />
                <label htmlFor={`channel-event-${option.id}`}>{option.label}</label>
              </div>
            ))}
            {fieldErrors.events && <p className="field-error">{fieldErrors.events}</p>}
          </fieldset>
        </div>
        <ErrorAlert error={failure} />
        <BusyButton busy={creating.isPending} busyText="Adding…" testId="create-channel">
          Add channel
        </BusyButton>
      </form>
    </section>
  );
}
