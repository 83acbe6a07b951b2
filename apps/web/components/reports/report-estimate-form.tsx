"use client";

import Link from "next/link";
import { useState, type FormEvent } from "react";
import type { EstimateView } from "@throng/protocol/report";
import { ApiError, errorMessage } from "../../lib/shared/api-client";
import { formatInteger } from "../../lib/shared/format";
import { reportApi } from "../../lib/shared/report-api";
import { fieldBinder, TextField } from "../ui/text-field";
import { BusyButton } from "../ui/busy-button";
import { ErrorAlert } from "../ui/error-alert";

/** Keeps this run's capacity estimate against a target and build, so /targets shows the change between builds. */
export function ReportEstimateForm({ runId }: { runId: string }) {
  const [targetName, setTargetName] = useState("");
  const [build, setBuild] = useState("");
  const [saved, setSaved] = useState<EstimateView | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [pending, setPending] = useState(false);

  async function save(event: FormEvent) {
    event.preventDefault();
    setPending(true);
    setFailure(null);
    setFields({});
    try {
      setSaved(await reportApi.saveEstimate(runId, { targetName, build }));
    } catch (error) {
      setFailure(errorMessage(error));
      if (error instanceof ApiError)
        setFields(Object.fromEntries(error.fields.map((field) => [field.path, field.message])));
    } finally {
      setPending(false);
    }
  }

  const setters = { targetName: setTargetName, build: setBuild };
  const field = fieldBinder({ targetName, build }, (key) => setters[key], fields, "estimate-");
  return (
    <section className="panel no-print" aria-labelledby="estimate-title" data-testid="save-estimate">
      <h2 id="estimate-title">Save this estimate</h2>
      <p className="muted">
        Keep the capacity under the server’s name and the build you tested, to see how each build changes it.
      </p>
      <form className="inline-form" onSubmit={save} noValidate>
        <TextField {...field("targetName")} label="Target name" hint="the server under test, e.g. lobby" />
        <TextField {...field("build")} label="Build label" hint="version or build, e.g. 1.4" />
        <BusyButton busy={pending} busyText="Saving…" testId="save-estimate-button">
          Save estimate
        </BusyButton>
      </form>
      <ErrorAlert error={failure} testId="estimate-error" />
      {saved && (
        <p role="status" data-testid="estimate-saved">
          Saved {saved.clients === null ? "no capacity" : `${formatInteger(saved.clients)} clients`} for{" "}
          <strong>{saved.targetName}</strong> build {saved.build}
          {saved.change ? ` — ${saved.change}` : " — the first estimate for this target"}.{" "}
          <Link href={`/targets/${encodeURIComponent(saved.targetName)}`}>See its history</Link>
        </p>
      )}
    </section>
  );
}
