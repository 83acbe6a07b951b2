"use client";

import { useEffect, useState, type FormEvent } from "react";
import type { MetricsExportSinkView, MetricsSink, PutMetricsExportSink } from "@throng/protocol/metrics-export";
import { useApiMutation } from "../../hooks/use-api-mutation";
import { useApiQuery } from "../../hooks/use-api-query";
import { formatDateTime } from "../../lib/shared/format";
import { metricsExportApi } from "../../lib/settings/metrics-export-api";
import { queryKeys } from "../../lib/shared/query-keys";
import { can } from "../../lib/shared/settings-permissions";
import { useMe } from "../shell/session-gate";
import { TextField, UrlField } from "../ui/text-field";
import { ErrorAlert } from "../ui/error-alert";
import { BusyButton } from "../ui/busy-button";

const SINKS: { id: MetricsSink; title: string; urlHint: string }[] = [
  {
    id: "prometheus",
    title: "Prometheus remote write",
    urlHint:
      "e.g. https://prometheus.example.com/api/v1/write (Prometheus with --web.enable-remote-write-receiver, Mimir, VictoriaMetrics…)",
  },
  {
    id: "otlp",
    title: "OTLP metrics (HTTP)",
    urlHint: "e.g. https://otel-collector.example.com:4318/v1/metrics (JSON encoding)",
  },
];

/** Where runs stream their per-second series: one form per sink, its last delivery, and a test button. */
export function MetricsExportSettings() {
  const manages = can(useMe().role, "settings.manage");
  const settings = useApiQuery(queryKeys.metricsExport, (signal) => metricsExportApi.settings(signal), {
    pollMs: 3000,
  });
  return (
    <>
      <p className="muted">
        Runs of plans whose <strong>Metrics export</strong> section says yes to an endpoint push their per-second series
        (RTT percentiles, throughput, errors, connections) to these endpoints while they run, and their summary when
        they end. Series names and a Grafana dashboard: docs/metrics-export.md.
      </p>
      <ErrorAlert error={settings.error} />
      {SINKS.map((sink) => (
        <SinkSection
          key={sink.id}
          sink={sink}
          view={settings.data?.[sink.id] ?? null}
          loaded={settings.data !== null}
          manages={manages}
        />
      ))}
    </>
  );
}

function SinkStatus({ view }: { view: MetricsExportSinkView }) {
  return (
    <dl className="summary-grid" data-testid={`sink-status-${view.sink}`}>
      <dt>Last success</dt>
      <dd>{view.lastSuccessAt ? formatDateTime(view.lastSuccessAt) : "none yet"}</dd>
      <dt>Last error</dt>
      <dd>{view.lastError ? `${view.lastError} (${formatDateTime(view.lastErrorAt!)})` : "none"}</dd>
    </dl>
  );
}

type AuthKind = PutMetricsExportSink["auth"]["kind"];

function SinkSection({
  sink,
  view,
  loaded,
  manages,
}: {
  sink: (typeof SINKS)[number];
  view: MetricsExportSinkView | null;
  loaded: boolean;
  manages: boolean;
}) {
  const [url, setUrl] = useState("");
  const [auth, setAuth] = useState<AuthKind>("none");
  const [username, setUsername] = useState("");
  const [secret, setSecret] = useState("");
  const [headers, setHeaders] = useState("");
  // Save, Send test and Remove share one pending state and one error line; each changes the sink's status.
  const acting = useApiMutation((action: () => Promise<unknown>) => action(), [queryKeys.metricsExport]);
  const { fieldErrors, failure } = acting;
  const pending = acting.isPending;
  // The form starts from what is stored (secrets excepted) once it has loaded, and after each save: when a stored
  // field changes, not when a refetch brings the same sink with a new status.
  const [storedUrl, storedAuth, storedUsername] = [view?.url, view?.auth, view?.username];
  useEffect(() => {
    if (storedUrl === undefined || storedAuth === undefined) return;
    setUrl(storedUrl);
    setAuth(storedAuth);
    setUsername(storedUsername ?? "");
  }, [storedUrl, storedAuth, storedUsername]);

  function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const parsedHeaders =
      headers.trim() === ""
        ? undefined
        : Object.fromEntries(
            headers
              .split("\n")
              .filter((line) => line.trim())
              .map((line) => {
                const cut = line.indexOf(":");
                return cut < 0 ? [line.trim(), ""] : [line.slice(0, cut).trim(), line.slice(cut + 1).trim()];
              }),
          );
    const authBody: PutMetricsExportSink["auth"] =
      auth === "basic"
        ? { kind: "basic", username: username.trim(), ...(secret ? { password: secret } : {}) }
        : auth === "bearer"
          ? { kind: "bearer", ...(secret ? { token: secret } : {}) }
          : { kind: "none" };
    acting.mutate(
      () =>
        metricsExportApi.put(sink.id, {
          url: url.trim(),
          auth: authBody,
          ...(parsedHeaders ? { headers: parsedHeaders } : {}),
        }),
      {
        onSuccess: () => {
          setSecret("");
          setHeaders("");
        },
      },
    );
  }

  const id = (name: string) => `${sink.id}-${name}`;
  return (
    <section className="settings-section panel" aria-labelledby={id("title")} data-testid={`sink-${sink.id}`}>
      <h2 id={id("title")}>{sink.title}</h2>
      {loaded && !view && <p className="muted">Not set up.</p>}
      {view && <SinkStatus view={view} />}
      {manages && (
        <form className="settings-form" onSubmit={save} noValidate>
          <div className="form-grid">
            <UrlField id={id("url")} value={url} onChange={setUrl} error={fieldErrors.url} hint={sink.urlHint} />
            <div className="field">
              <label htmlFor={id("auth")}>Authentication</label>
              <select id={id("auth")} value={auth} onChange={(event) => setAuth(event.target.value as AuthKind)}>
                <option value="none">None</option>
                <option value="basic">Basic (user and password)</option>
                <option value="bearer">Bearer token</option>
              </select>
            </div>
            {auth === "basic" && (
              <TextField
                id={id("username")}
                label="User"
                value={username}
                onChange={setUsername}
                error={fieldErrors.auth}
                autoComplete="off"
              />
            )}
            {auth !== "none" && (
              <TextField
                id={id("secret")}
                label={auth === "basic" ? "Password" : "Token"}
                type="password"
                value={secret}
                onChange={setSecret}
                autoComplete="new-password"
                error={fieldErrors.auth}
                hint={
                  view?.secret === "set" && view.auth === auth
                    ? "Set: leave empty to keep it. Never shown again."
                    : "Stored encrypted; never shown again."
                }
              />
            )}
          </div>
          <div className="field">
            <label htmlFor={id("headers")}>Extra headers</label>
            <textarea
              id={id("headers")}
              rows={2}
              value={headers}
              onChange={(event) => setHeaders(event.target.value)}
              placeholder="X-Scope-OrgID: team-a"
              aria-describedby={id("headers-hint")}
            />
            <p className="hint" id={id("headers-hint")}>
              One <code>Name: value</code> a line; values are stored encrypted.{" "}
              {view?.headerNames.length ? `Set: ${view.headerNames.join(", ")} (leave empty to keep them).` : ""}
            </p>
            {fieldErrors.headers && <p className="field-error">{fieldErrors.headers}</p>}
          </div>
          <ErrorAlert error={failure} />
          <div className="form-actions">
            <BusyButton busy={pending} busyText="Saving…" testId={`save-${sink.id}`}>
              Save
            </BusyButton>
            {view && (
              <>
                <button
                  className="button"
                  type="button"
                  disabled={pending}
                  onClick={() => acting.mutate(() => metricsExportApi.test(sink.id))}
                  data-testid={`test-${sink.id}`}
                >
                  Send test
                </button>
                <button
                  className="button danger"
                  type="button"
                  disabled={pending}
                  onClick={() => acting.mutate(() => metricsExportApi.remove(sink.id))}
                >
                  Remove
                </button>
              </>
            )}
          </div>
        </form>
      )}
    </section>
  );
}
