// The script bundle calls (POST/GET /api/scripts, GET /api/scripts/:sha256), answered with the protocol's schemas.
import { ScriptList, ScriptSummary, ScriptView, type UploadScript } from "@throng/protocol/script-bundle";
import { apiRequest } from "../shared/api-client";
import { formatDecimal } from "../shared/format";

export const scriptsApi = {
  /** The organisation's scripts, newest first. */
  list: async (signal?: AbortSignal) =>
    (await apiRequest("GET", "/api/scripts", ScriptList, undefined, signal)).scripts,
  get: (sha256: string, signal?: AbortSignal) =>
    apiRequest("GET", `/api/scripts/${encodeURIComponent(sha256)}`, ScriptView, undefined, signal),
  /** Stores the source under its SHA-256; the same bytes again answer the stored summary. */
  upload: (body: UploadScript) => apiRequest("POST", "/api/scripts", ScriptSummary, body),
};

/** The first 12 hex digits, as lists and the plan form show a hash. */
export const shortHash = (sha256: string) => sha256.slice(0, 12);

/** A bundle's size for lists: bytes, KiB or MiB. */
export function formatBundleSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${formatDecimal(bytes / 1024, 1)} KiB`;
  return `${formatDecimal(bytes / 1024 / 1024, 2)} MiB`;
}
