"use client";

import Link from "next/link";
import { useApiQuery } from "../../hooks/use-api-query";
import { formatDateTime } from "../../lib/shared/format";
import { queryKeys } from "../../lib/shared/query-keys";
import { formatBundleSize, scriptsApi } from "../../lib/scripts/scripts-api";
import { CodeEditor } from "../ui/code-editor";
import { CopyButton } from "../ui/copy-button";
import { ErrorAlert } from "../ui/error-alert";

/** One stored script: its full hash to paste into a plan, and its source, read-only (the hash is of these bytes). */
export function ScriptDetail({ sha256 }: { sha256: string }) {
  const { data: script, error } = useApiQuery(queryKeys.script(sha256), (signal) => scriptsApi.get(sha256, signal));
  return (
    <>
      <p className="small">
        <Link href="/scripts">← Scripts</Link>
      </p>
      <ErrorAlert error={error} />
      {!script && !error && <p className="loading">Loading the script…</p>}
      {script && (
        <>
          <div className="page-head">
            <div>
              <h1 data-testid="script-name">{script.name}</h1>
              <p>
                {formatBundleSize(script.sizeBytes)} · stored {formatDateTime(script.createdAt)}
              </p>
            </div>
            <div className="head-actions">
              <Link className="button" href={`/scripts/new?from=${script.sha256}`} data-testid="script-edit-copy">
                Edit a copy
              </Link>
              <Link className="button" href="/plans/new">
                New plan
              </Link>
            </div>
          </div>
          <section className="panel" aria-labelledby="script-hash-title">
            <h2 id="script-hash-title">SHA-256</h2>
            <p className="muted small">
              A plan runs this script with <code>{"scenario: { kind: script, script: { sha256: … } }"}</code>; agents
              check the bytes they get against it.
            </p>
            <div className="command">
              <pre className="wrap">
                <code data-testid="script-sha256">{script.sha256}</code>
              </pre>
              <CopyButton text={script.sha256} label="the script's SHA-256" />
            </div>
          </section>
          <section className="panel" aria-labelledby="script-source-title">
            <h2 id="script-source-title">Source</h2>
            <CodeEditor
              id="script-source"
              label={`Source of ${script.name}`}
              value={script.source}
              testId="script-source"
            />
          </section>
        </>
      )}
    </>
  );
}
