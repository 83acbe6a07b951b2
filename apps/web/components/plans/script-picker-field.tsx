"use client";

import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useApiQuery } from "../../hooks/use-api-query";
import { queryKeys } from "../../lib/shared/query-keys";
import { scriptsApi, shortHash } from "../../lib/scripts/scripts-api";

interface ScriptPickerProps {
  id: string;
  label: string;
  hint?: string | undefined;
  error?: string | undefined;
  /** The draft's `scenario.script`: `{ sha256 }` of a stored script, or `{ path }` (set in the YAML view, for standalone runs). */
  value: unknown;
  onChange: (value: { sha256: string }) => void;
}

const PATH_OPTION = "path";

/**
 * A script scenario's script, chosen from the organisation's stored scripts by name and short hash, instead of
 * typing a hash. A path or an unknown hash set in the YAML view stays selected and is shown for what it is.
 */
export function ScriptPickerField({ id, label, hint, error, value, onChange }: ScriptPickerProps) {
  const queryClient = useQueryClient();
  // The Scripts page's list: a script stored in another tab ("new script") shows after Refresh list.
  const scripts = useApiQuery(queryKeys.scripts, (signal) => scriptsApi.list(signal));
  const current = typeof value === "object" && value !== null ? (value as { sha256?: unknown; path?: unknown }) : {};
  const sha256 = typeof current.sha256 === "string" ? current.sha256.toLowerCase() : "";
  const path = typeof current.path === "string" ? current.path : "";
  const listed = scripts.data ?? [];
  const known = sha256 !== "" && listed.some((script) => script.sha256 === sha256);
  const selected = sha256 || (path ? PATH_OPTION : "");
  const describedBy =
    [hint && `${id}-hint`, error && `${id}-error`, scripts.error && `${id}-load-error`].filter(Boolean).join(" ") ||
    undefined;

  return (
    <div className="field wide" data-testid="script-picker">
      <label htmlFor={id}>{label}</label>
      <div className="input-row">
        <select
          id={id}
          value={selected}
          aria-describedby={describedBy}
          aria-invalid={error ? true : undefined}
          onChange={(event) =>
            event.target.value && event.target.value !== PATH_OPTION && onChange({ sha256: event.target.value })
          }
        >
          <option value="">
            {scripts.data
              ? listed.length
                ? "Choose a script"
                : "No scripts yet: write one first"
              : "Loading scripts…"}
          </option>
          {listed.map((script) => (
            <option key={script.sha256} value={script.sha256}>
              {`${script.name} (${shortHash(script.sha256)})`}
            </option>
          ))}
          {sha256 && !known && (
            <option
              value={sha256}
            >{`${shortHash(sha256)}… (${scripts.data ? "not stored in this organisation" : "loading"})`}</option>
          )}
          {path && <option value={PATH_OPTION}>{`path on the agent: ${path}`}</option>}
        </select>
        {known && (
          <Link href={`/scripts/${sha256}`} target="_blank" rel="noopener" data-testid="script-picker-view">
            view
          </Link>
        )}
        <Link href="/scripts/new" target="_blank" rel="noopener" data-testid="script-picker-new">
          new script
        </Link>
        <button
          className="button small"
          type="button"
          onClick={() => void queryClient.invalidateQueries({ queryKey: queryKeys.scripts })}
          data-testid="script-picker-refresh"
        >
          Refresh list
        </button>
      </div>
      {hint && (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {scripts.error && (
        <p className="field-error" id={`${id}-load-error`}>
          The scripts could not be listed: {scripts.error}
        </p>
      )}
      {error && (
        <p className="field-error" id={`${id}-error`} data-testid={`field-error-${id}`}>
          {error}
        </p>
      )}
    </div>
  );
}
