import { NextResponse, type NextRequest } from "next/server";
import { newNonce, pageCsp } from "./lib/server/security-headers";

/**
 * A fresh CSP nonce for every page. Next reads the nonce from the request's CSP header while rendering and puts
 * it on its scripts, which is why the pages render per request (see app/layout.tsx). The other security
 * headers, and the CSP of the /api proxy and static files, come from next.config.ts.
 */
export function proxy(request: NextRequest) {
  const csp = pageCsp(newNonce(), process.env.NODE_ENV === "development");
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", csp);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", csp);
  return response;
}

export const config = {
  matcher: ["/((?!api/|_next/static/|_next/image).*)"],
};
