import { ErrorBody } from "@throng/protocol/errors";
import { PlanView } from "@throng/protocol/api";
import type { PlanSpec } from "@throng/protocol/plan";
import { RunSeries, RunView } from "@throng/protocol/run";
import type { RunNotesPatch } from "@throng/protocol/run-notes";
import { ScriptSummary, type UploadScript } from "@throng/protocol/script-bundle";
import { ApiError, ServerUnreachableError } from "./errors";

export interface ApiClientOptions {
  /** The API's base URL, e.g. http://localhost:4000. */
  server: string;
  /** An API token (thr_api_...); sent as a bearer token and never printed. */
  token: string;
  /** Give up on one request after this long (the follow loop retries). */
  requestTimeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

interface Schema<T> {
  parse(input: unknown): T;
}

/** Turns an error answer into an ApiError carrying the server's own message and field errors. */
function apiError(status: number, text: string): ApiError {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const body = ErrorBody.safeParse(json);
  if (!body.success)
    return new ApiError(
      status,
      undefined,
      `the server answered HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ""}`,
    );
  const { code, message, fields = [] } = body.data.error;
  const details = fields.length > 1 ? `\n${fields.map((f) => `  ${f.path}: ${f.message}`).join("\n")}` : "";
  return new ApiError(status, code, `${message}${details}`, fields);
}

/** The few REST calls the CI command makes, typed with the shared schemas. */
export function createApiClient(options: ApiClientOptions) {
  const base = options.server.replace(/\/+$/, "");
  const doFetch = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.requestTimeoutMs ?? 30_000;

  async function request<T>(method: string, path: string, schema: Schema<T>, body?: unknown): Promise<T> {
    let response: Response;
    let text: string;
    try {
      response = await doFetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${options.token}`,
          accept: "application/json",
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      throw new ServerUnreachableError(
        `cannot reach the Throng API at ${base} (${method} ${path}: ${cause}); check --server / THRONG_SERVER`,
      );
    }
    if (!response.ok) throw apiError(response.status, text);
    try {
      return schema.parse(JSON.parse(text));
    } catch (error) {
      throw new Error(
        `unexpected answer to ${method} ${path} from ${base}: ${(error as Error).message.slice(0, 300)}; is --server the Throng API (not the dashboard)?`,
      );
    }
  }

  return {
    createPlan: (spec: PlanSpec) => request("POST", "/api/plans", PlanView, spec),
    /** A new version of the active plan named `name`, or a new plan when none has that name. */
    savePlanByName: (name: string, spec: PlanSpec) => request("PUT", "/api/plans/by-name", PlanView, { name, spec }),
    /** 201 stored, 200 the org already had these bytes: the same summary either way. */
    uploadScript: (script: UploadScript) => request("POST", "/api/scripts", ScriptSummary, script),
    startRun: (planId: string) => request("POST", `/api/plans/${planId}/runs`, RunView),
    getRun: (runId: string) => request("GET", `/api/runs/${runId}`, RunView),
    annotateRun: (runId: string, notes: RunNotesPatch) => request("PATCH", `/api/runs/${runId}`, RunView, notes),
    getSeries: (runId: string) => request("GET", `/api/runs/${runId}/series`, RunSeries),
    abortRun: (runId: string) => request("POST", `/api/runs/${runId}/abort`, RunView),
  };
}
export type ApiClient = ReturnType<typeof createApiClient>;
