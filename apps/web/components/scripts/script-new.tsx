"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState, type FormEvent } from "react";
import { UploadScript } from "@throng/protocol/script-bundle";
import { ApiError, errorMessage } from "../../lib/shared/api-client";
import { scriptsApi } from "../../lib/scripts/scripts-api";
import { STARTER_METRICS, STARTER_SCRIPT, STARTER_SCRIPT_NAME } from "../../lib/scripts/starter-script";
import { CodeEditor } from "../ui/code-editor";
import { Described, describedBy } from "../plans/described";
import { BusyButton } from "../ui/busy-button";
import { ErrorAlert } from "../ui/error-alert";

const NAME_HINT = "Shown in lists and in the plan form, e.g. arena-bots.mjs.";

type Errors = Partial<Record<"name" | "source" | "form", string>>;

/** Errors by field from UploadScript's issues or the API's 400 (`fields: [{ path, message }]`). */
function errorsOf(issues: readonly { path: readonly PropertyKey[] | string; message: string }[]): Errors {
  const errors: Errors = {};
  for (const issue of issues) {
    const key = (Array.isArray(issue.path) ? String(issue.path[0] ?? "") : String(issue.path)).split(".")[0];
    const field = key === "name" || key === "source" ? key : "form";
    errors[field] ??= issue.message;
  }
  return errors;
}

/** Larger sources are bundles (minified, with their npm packages): edited and re-bundled from their own files, not here. */
const EDITABLE_BYTES = 256 * 1024;

/**
 * A single-file script without dependencies, written in the browser from the starter, or from a copy of a stored
 * script (`from`: its SHA-256), and stored under its own hash: a stored script never changes.
 */
export function ScriptNew({ from }: { from?: string }) {
  const router = useRouter();
  const [name, setName] = useState(from ? "" : STARTER_SCRIPT_NAME);
  const [source, setSource] = useState(from ? "" : STARTER_SCRIPT);
  const [loading, setLoading] = useState(Boolean(from));
  const [errors, setErrors] = useState<Errors>({});
  const [pending, setPending] = useState(false);

  useEffect(() => {
    if (!from) return;
    const abort = new AbortController();
    scriptsApi
      .get(from, abort.signal)
      .then((script) => {
        if (script.sizeBytes > EDITABLE_BYTES)
          return setErrors({
            form: `${script.name} is a ${Math.round(script.sizeBytes / 1024)} KiB bundle: edit its own files and upload a new bundle (throng script upload) instead`,
          });
        setName(script.name);
        setSource(script.source);
      })
      .catch((error) => abort.signal.aborted || setErrors({ form: errorMessage(error) }))
      .finally(() => abort.signal.aborted || setLoading(false));
    return () => abort.abort();
  }, [from]);

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const checked = UploadScript.safeParse({ name, source });
    if (!checked.success) return setErrors(errorsOf(checked.error.issues));
    setErrors({});
    setPending(true);
    try {
      const script = await scriptsApi.upload(checked.data);
      router.push(`/scripts/${script.sha256}`);
    } catch (error) {
      setErrors(
        error instanceof ApiError && error.fields.length > 0 ? errorsOf(error.fields) : { form: errorMessage(error) },
      );
      setPending(false);
    }
  }

  const hint =
    "The module's default export runs once per client. Saved scripts cannot change: saving an edit stores a new script with its own hash.";
  return (
    <form onSubmit={save} noValidate aria-labelledby="script-new-title" data-testid="script-form">
      <p className="small">
        <Link href="/scripts">← Scripts</Link>
      </p>
      <div className="page-head">
        <div>
          <h1 id="script-new-title">{from ? "Edit a copy" : "New script"}</h1>
          <p>
            One JavaScript module with no dependencies (Node 20 built-ins such as node:net are there). For npm packages,
            bundle with <code>throng script bundle</code> and upload the bundle.
          </p>
        </div>
      </div>
      <ErrorAlert error={errors.form} testId="script-form-error" />
      <section className="panel">
        <div className="field">
          <label htmlFor="script-name">Name</label>
          <input
            id="script-name"
            type="text"
            value={name}
            onChange={(event) => setName(event.target.value)}
            autoComplete="off"
            aria-invalid={errors.name ? true : undefined}
            aria-describedby={describedBy("script-name", { hint: NAME_HINT, error: errors.name })}
          />
          <Described id="script-name" hint={NAME_HINT} error={errors.name} />
        </div>
        <div className="field">
          <span className="label-like" id="script-source-label">
            Source
          </span>
          {loading ? (
            <p className="loading">Loading the script…</p>
          ) : (
            <CodeEditor
              id="script-source"
              label="Script source"
              value={source}
              onChange={setSource}
              testId="script-editor"
              describedBy="script-source-hint"
            />
          )}
          <Described id="script-source" hint={hint} error={errors.source} />
        </div>
        <div className="muted small" data-testid="script-context-help">
          <p>
            The starter opens one TCP connection per client to the plan’s target and sends{" "}
            <code>parameters.message</code> (default PING) every <code>parameters.intervalMs</code>; against Redis, set{" "}
            <code>expect: +PONG</code>. A plan using it declares its metrics:{" "}
            {STARTER_METRICS.map((metric) => `${metric.name} (${metric.kind})`).join(", ")}.
          </p>
          <p>
            Each client gets <code>ctx</code>: <code>client</code>, <code>room</code>, <code>parameters</code>,{" "}
            <code>target</code>, <code>signal</code> (aborted at the end), <code>measure(name, promise)</code>,{" "}
            <code>count(name, n)</code>, <code>broadcast(sender, seq, sentAtUs)</code>, <code>error(cause)</code> and{" "}
            <code>every(ms, fn)</code>. Reference: docs/protocols.md in the Throng repository (Scripted clients).
          </p>
        </div>
      </section>
      <div className="form-actions">
        <BusyButton busy={pending} busyText="Saving…" disabled={loading} testId="save-script">
          Save script
        </BusyButton>
        <Link className="button" href="/scripts">
          Cancel
        </Link>
      </div>
    </form>
  );
}
