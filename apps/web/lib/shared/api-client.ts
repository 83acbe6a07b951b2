import { ErrorBody, type ErrorCode, type FieldError } from "@throng/protocol/errors";
import { quietFetch } from "./quiet-refusal";

/** The slice of a zod schema the client needs, so the web does not depend on zod itself. */
export interface ResponseSchema<T> {
  safeParse(
    input: unknown,
  ):
    | { success: true; data: T }
    | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/** `{ [key]: T[] }` answers, checked item by item with the protocol's schema; resolves to the array. */
export function listOf<T>(key: string, item: ResponseSchema<T>): ResponseSchema<T[]> {
  return {
    safeParse(input: unknown) {
      const list = typeof input === "object" && input !== null ? (input as Record<string, unknown>)[key] : undefined;
      if (!Array.isArray(list)) {
        return { success: false, error: { issues: [{ path: [key], message: "expected an array" }] } };
      }
      const items: T[] = [];
      for (const [index, raw] of list.entries()) {
        const parsed = item.safeParse(raw);
        if (!parsed.success) {
          const issues = parsed.error.issues.map((issue) => ({
            path: [key, index, ...issue.path],
            message: issue.message,
          }));
          return { success: false, error: { issues } };
        }
        items.push(parsed.data);
      }
      return { success: true, data: items };
    },
  };
}

/** An API answer that was not 2xx, or a 2xx whose body broke the contract. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode | "unreachable" | "bad_response",
    message: string,
    readonly fields: FieldError[] = [],
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export function isUnauthenticated(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401;
}

/** Message to show the user for anything thrown by an API call. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return "Something went wrong; try again.";
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function toApiError(status: number, body: unknown, what: string): ApiError {
  const parsed = ErrorBody.safeParse(body);
  if (parsed.success) {
    const { code, message, fields } = parsed.data.error;
    return new ApiError(status, code, message, fields ?? []);
  }
  if (status === 401) return new ApiError(status, "unauthenticated", "You are signed out; sign in again.");
  return new ApiError(status, "bad_response", `${what} failed with HTTP ${status}.`);
}

/**
 * Calls the API through the web origin's /api proxy and validates the answer with the
 * protocol schema, so a contract drift shows as a clear error instead of a broken page.
 */
export async function apiRequest<T>(
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  path: string,
  schema: ResponseSchema<T> | null,
  body?: unknown,
  signal?: AbortSignal,
): Promise<T> {
  const what = `${method} ${path}`;
  let response: Response;
  try {
    response = await quietFetch(path, {
      method,
      signal,
      credentials: "same-origin",
      cache: "no-store",
      headers:
        body === undefined
          ? { accept: "application/json" }
          : { accept: "application/json", "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError(0, "unreachable", "The dashboard could not reach its server; check your connection.");
  }
  const json = await readJson(response);
  if (!response.ok) throw toApiError(response.status, json, what);
  if (!schema) return json as T;
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.map(String).join(".") || "body"}: ${issue.message}` : "invalid";
    throw new ApiError(response.status, "bad_response", `The API answered ${what} with an unexpected body (${where}).`);
  }
  return parsed.data;
}

/** "report.pdf" from `attachment; filename="report.pdf"`; null when the header names no file. */
export function attachmentName(disposition: string | null): string | null {
  const match = /filename="([^"]+)"/.exec(disposition ?? "");
  return match ? match[1]! : null;
}

/** A file the API answers (a PDF export): its bytes, and the name its Content-Disposition gives it. */
export async function apiFile(path: string, fallbackName: string): Promise<{ blob: Blob; fileName: string }> {
  let response: Response;
  try {
    response = await quietFetch(path, { credentials: "same-origin", cache: "no-store" });
  } catch {
    throw new ApiError(0, "unreachable", "The dashboard could not reach its server; check your connection.");
  }
  if (!response.ok) throw toApiError(response.status, await readJson(response), `GET ${path}`);
  return {
    blob: await response.blob(),
    fileName: attachmentName(response.headers.get("content-disposition")) ?? fallbackName,
  };
}
