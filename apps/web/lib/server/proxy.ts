// Server-only: forwards one /api/* request from the browser to the API and streams the answer back.
import { QUIET_REQUEST, QUIET_STATUS, quietStatus } from "../shared/quiet-refusal";

// RFC 9110 §7.6.1 connection-specific headers: they belong to one hop, so neither direction passes them on.
const HOP_BY_HOP = [
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
];

// Also host (the API's own) and accept-encoding (fetch decodes bodies itself, so the browser must get them unencoded).
const DROP_REQUEST = new Set([...HOP_BY_HOP, "host", "accept-encoding", QUIET_REQUEST]);

// Also drop encoding and length: the body we stream back is the decoded one.
const DROP_RESPONSE = new Set([...HOP_BY_HOP, "content-encoding", "content-length", "set-cookie"]);

const NO_BODY_STATUSES = new Set([101, 204, 205, 304]);

export function apiBaseUrl(): string {
  return (process.env.API_URL ?? "http://127.0.0.1:4000").replace(/\/+$/, "");
}

function upstreamRequestHeaders(request: Request): Headers {
  const headers = new Headers();
  request.headers.forEach((value, name) => {
    if (!DROP_REQUEST.has(name.toLowerCase())) headers.set(name, value);
  });
  const url = new URL(request.url);
  const forwardedHost = request.headers.get("host") ?? url.host;
  headers.set("x-forwarded-host", forwardedHost);
  headers.set("x-forwarded-proto", url.protocol.replace(":", ""));
  return headers;
}

function downstreamHeaders(upstream: Response): Headers {
  const headers = new Headers();
  upstream.headers.forEach((value, name) => {
    if (!DROP_RESPONSE.has(name.toLowerCase())) headers.set(name, value);
  });
  // Sign-in sets several cookies; joining them into one header would break them.
  for (const cookie of upstream.headers.getSetCookie()) headers.append("set-cookie", cookie);
  return headers;
}

function unreachable(target: string, error: unknown): Response {
  const reason = error instanceof Error ? error.message : String(error);
  const body = {
    error: {
      code: "unavailable",
      message: `The API at ${apiBaseUrl()} is not reachable (${reason}); start it (npm start) or set API_URL.`,
    },
  };
  console.error(`[web proxy] ${target}: ${reason}`);
  return Response.json(body, { status: 502 });
}

/** Forwards `request` (path under /api kept as is) to the API; the answer streams back unbuffered. */
export async function proxyToApi(request: Request): Promise<Response> {
  const incoming = new URL(request.url);
  const target = `${apiBaseUrl()}${incoming.pathname}${incoming.search}`;
  const hasBody = request.method !== "GET" && request.method !== "HEAD" && request.body !== null;
  const init: RequestInit & { duplex?: "half" } = {
    method: request.method,
    headers: upstreamRequestHeaders(request),
    body: hasBody ? request.body : undefined,
    redirect: "manual",
    signal: request.signal,
    cache: "no-store",
  };
  if (hasBody) init.duplex = "half";

  let upstream: Response;
  try {
    upstream = await fetch(target, init);
  } catch (error) {
    if (request.signal.aborted) return new Response(null, { status: 499 });
    return unreachable(target, error);
  }
  const body = NO_BODY_STATUSES.has(upstream.status) || request.method === "HEAD" ? null : upstream.body;
  const { status, refused } = quietStatus(upstream.status, request.headers.has(QUIET_REQUEST));
  const headers = downstreamHeaders(upstream);
  if (refused !== null) headers.set(QUIET_STATUS, String(refused));
  return new Response(body, { status, statusText: refused === null ? upstream.statusText : "OK", headers });
}
