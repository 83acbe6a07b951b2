"use client";

import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { SCRIPT_BUNDLE_MAX_BYTES, type ScriptSummary } from "@throng/protocol/script-bundle";
import { useApiQuery } from "../../hooks/use-api-query";
import { errorMessage } from "../../lib/shared/api-client";
import { formatDateTime } from "../../lib/shared/format";
import { queryKeys } from "../../lib/shared/query-keys";
import { can } from "../../lib/shared/settings-permissions";
import { formatBundleSize, scriptsApi, shortHash } from "../../lib/scripts/scripts-api";
import { DataTable } from "../ui/data-table";
import { useMe } from "../shell/session-gate";
import { ErrorAlert } from "../ui/error-alert";
import { FilePicker } from "../ui/file-picker";

/** Scripts page: the organisation's script bundles, an upload of a bundle built elsewhere, and a new script. */
export function ScriptsView() {
  const queryClient = useQueryClient();
  const { data, error } = useApiQuery(queryKeys.scripts, (signal) => scriptsApi.list(signal));
  const writes = can(useMe().role, "plan.write");
  const [uploaded, setUploaded] = useState<UploadResult | null>(null);
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Scripts</h1>
          <p>
            JavaScript modules a plan with the scenario type “script” runs for every client on agents that allow
            scripts. Each is stored once under the SHA-256 of its bytes; plans refer to it by that hash.
          </p>
        </div>
        {writes && (
          <div className="head-actions">
            <UploadBundle
              onResult={(result) => {
                setUploaded(result);
                // A stored bundle joins the list (and the plan form's script picker, which reads the same key).
                if (result?.ok) void queryClient.invalidateQueries({ queryKey: queryKeys.scripts });
              }}
            />
            <Link className="button primary" href="/scripts/new" data-testid="new-script">
              New script
            </Link>
          </div>
        )}
      </div>
      {uploaded && (
        <p
          className={uploaded.ok ? "notice" : "alert"}
          role={uploaded.ok ? "status" : "alert"}
          data-testid="upload-script-result"
        >
          {uploaded.ok ? (
            <>
              Stored {uploaded.script.name} as{" "}
              <Link href={`/scripts/${uploaded.script.sha256}`}>
                <code>{uploaded.script.sha256}</code>
              </Link>
            </>
          ) : (
            uploaded.message
          )}
        </p>
      )}
      <ErrorAlert error={error} />
      {!data && !error && <p className="loading">Loading scripts…</p>}
      {data && <ScriptTable scripts={data} />}
    </>
  );
}

function ScriptTable({ scripts }: { scripts: readonly ScriptSummary[] }) {
  if (scripts.length === 0) {
    return (
      <div className="empty" data-testid="scripts-empty">
        <strong>No scripts yet.</strong>
        Write one from the starter with “New script”, upload a bundle made by <code>throng script bundle</code>, or let{" "}
        <code>throng run</code> upload it.
      </div>
    );
  }
  return (
    <DataTable
      caption="Script bundles, newest first"
      columns={["Name", "SHA-256", { label: "Size", numeric: true }, "Created"]}
    >
      {scripts.map((script) => (
        <tr key={script.sha256} data-testid="script-row" data-sha256={script.sha256}>
          <th scope="row">
            <Link href={`/scripts/${script.sha256}`}>{script.name}</Link>
          </th>
          <td>
            <code title={script.sha256}>{shortHash(script.sha256)}</code>
          </td>
          <td className="num">{formatBundleSize(script.sizeBytes)}</td>
          <td>{formatDateTime(script.createdAt)}</td>
        </tr>
      ))}
    </DataTable>
  );
}

type UploadResult = { ok: true; script: ScriptSummary } | { ok: false; message: string };

/** A .js/.mjs bundle picked from disk, stored as it is; its result (the hash it got, or why not) goes to `onResult`. */
function UploadBundle({ onResult }: { onResult: (result: UploadResult | null) => void }) {
  const [pending, setPending] = useState(false);

  async function upload(file: File) {
    onResult(null);
    if (file.size > SCRIPT_BUNDLE_MAX_BYTES) {
      onResult({
        ok: false,
        message: `${file.name} is ${formatBundleSize(file.size)}; a bundle may be at most ${formatBundleSize(SCRIPT_BUNDLE_MAX_BYTES)}.`,
      });
      return;
    }
    setPending(true);
    try {
      onResult({ ok: true, script: await scriptsApi.upload({ name: file.name, source: await file.text() }) });
    } catch (error) {
      onResult({ ok: false, message: `${file.name}: ${errorMessage(error)}` });
    } finally {
      setPending(false);
    }
  }

  return (
    <FilePicker
      accept=".js,.mjs,.cjs,text/javascript,application/javascript"
      label="Script bundle to upload (.js or .mjs)"
      testId="upload-script"
      onFile={(file) => void upload(file)}
      busy={pending}
      busyText="Uploading…"
    >
      Upload bundle…
    </FilePicker>
  );
}
