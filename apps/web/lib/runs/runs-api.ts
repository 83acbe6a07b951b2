// GET /api/runs a page at a time, filtered by the API (runsQueryOf in run-filter.ts says what to ask for).
import { RunView } from "@throng/protocol/run";
import { RunPage, type RunsQuery } from "@throng/protocol/run-list";
import type { RunNotesPatch } from "@throng/protocol/run-notes";
import { RunRangeSummary } from "@throng/protocol/run-range";
import { apiRequest } from "../shared/api-client";

/** `?status=…&page=2&limit=20`, leaving out what is not set. */
export function runsQueryString(query: Partial<RunsQuery>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && value !== null) params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : "";
}

export const runsApi = {
  /** A run's note and/or tags; answers the run as it is now. */
  annotate: (runId: string, patch: RunNotesPatch) =>
    apiRequest("PATCH", `/api/runs/${encodeURIComponent(runId)}`, RunView, patch),
  /** The run's summary over a zoomed range of its seconds (GET /api/runs/:id/summary). */
  rangeSummary: (runId: string, range: { from: number; to: number }, signal?: AbortSignal) =>
    apiRequest(
      "GET",
      `/api/runs/${encodeURIComponent(runId)}/summary?from=${range.from}&to=${range.to}`,
      RunRangeSummary,
      undefined,
      signal,
    ),
  page: (query: Partial<RunsQuery>, signal?: AbortSignal) =>
    apiRequest("GET", `/api/runs${runsQueryString(query)}`, RunPage, undefined, signal),
};
