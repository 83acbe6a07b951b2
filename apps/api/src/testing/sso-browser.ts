import { expect } from "vitest";
import { SsoSignInStarted } from "@throng/protocol/sso";
import { WEB_ORIGIN } from "./test-api";

/**
 * A browser for the SSO tests: cookies per host, redirects followed by hand, JSON or form bodies. Throng's own pages
 * live at WEB_ORIGIN (the Next proxy in production); here its /api paths go straight to the API under test.
 */
export function ssoBrowser(apiUrl: string) {
  const jars = new Map<string, Map<string, string>>();
  const toApi = (url: string) =>
    url.startsWith(WEB_ORIGIN)
      ? `${apiUrl}${url.slice(WEB_ORIGIN.length)}`
      : url.startsWith("/")
        ? `${apiUrl}${url}`
        : url;
  async function send(method: string, rawUrl: string, body?: unknown, origin: string = WEB_ORIGIN): Promise<Response> {
    const url = new URL(toApi(rawUrl));
    const jar = jars.get(url.host) ?? new Map<string, string>();
    jars.set(url.host, jar);
    const form = body instanceof URLSearchParams;
    const response = await fetch(url, {
      method,
      redirect: "manual",
      headers: {
        origin,
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "),
        ...(body !== undefined
          ? { "content-type": form ? "application/x-www-form-urlencoded" : "application/json" }
          : {}),
      },
      ...(body !== undefined ? { body: form ? body.toString() : JSON.stringify(body) } : {}),
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const at = pair!.indexOf("=");
      jar.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return response;
  }
  return {
    send,
    /** Starts company sign-in for `email`, as the sign-in page does; returns the identity provider's URL Throng sends the browser to. */
    async startSignIn(email: string): Promise<string> {
      const started = await send("POST", "/api/sso/sign-in", { email });
      expect(started.status, await started.clone().text()).toBe(200);
      return SsoSignInStarted.parse(await started.json()).url;
    },
    /** Follows redirects from `url` until one leads back to Throng's web origin; returns that location. */
    async followToThrong(url: string): Promise<string> {
      let next = url;
      for (let hop = 0; hop < 20; hop++) {
        if (next.startsWith(WEB_ORIGIN)) return next;
        const response = await send("GET", next);
        const location = response.headers.get("location");
        if (!location)
          throw new Error(`${next} answered ${response.status} without a redirect: ${await response.text()}`);
        next = new URL(location, next).toString();
      }
      throw new Error("too many redirects");
    },
  };
}
export type SsoBrowser = ReturnType<typeof ssoBrowser>;

/** An answer's message: Throng's error body, or Better Auth's for its own endpoints. */
export function messageOf(json: unknown): string {
  const body = json as { error?: { message?: string }; message?: string } | null;
  return body?.error?.message ?? body?.message ?? "";
}
