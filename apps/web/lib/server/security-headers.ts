// Security headers for every response of the web origin. Pages get a Content-Security-Policy with a fresh
// nonce per request (proxy.ts), which Next puts on its own inline scripts; everything else (the /api proxy,
// static chunks) gets one that allows nothing to run, since none of it is a document.

/** Headers on every response, pages or not. */
export const COMMON_SECURITY_HEADERS: readonly { key: string; value: string }[] = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  // For browsers that predate frame-ancestors.
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=()" },
];

/** CSP for responses that are not pages. */
export const NON_DOCUMENT_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * CSP for a page. Scripts: this origin, plus Next's inline bootstrap scripts by nonce ('strict-dynamic' lets
 * the chunks they load run). Data: this origin only (the API is reached through the /api proxy, live
 * updates included). `dev` adds what `next dev` needs (eval for React's debugging, its HMR socket).
 */
export function pageCsp(nonce: string, dev = false): string {
  const directives = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self'${dev ? " ws:" : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ];
  return directives.join("; ");
}

/** A nonce: 128 random bits, base64. */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}
