import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import { connection } from "next/server";
import type { ReactNode } from "react";
import { QueryProvider } from "../components/shell/query-provider";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Throng", template: "%s · Throng" },
  description: "Load tests for realtime and game servers",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

// Rendered per request: Next can only put proxy.ts's CSP nonce on its scripts while rendering a request.
/**
 * zod's schemas, built when their modules load, first probe `new Function("")` to choose a faster parser; under this
 * CSP (no eval) the probe fails quietly but the browser still reports a violation on every page. Setting zod's
 * global `jitless` before any script loads skips the probe (zod reads `globalThis.__zod_globalConfig`).
 */
const ZOD_WITHOUT_EVAL =
  "globalThis.__zod_globalConfig = Object.assign(globalThis.__zod_globalConfig || {}, { jitless: true });";

export default async function RootLayout({ children }: { children: ReactNode }) {
  await connection();
  const nonce = /'nonce-([^']+)'/.exec((await headers()).get("content-security-policy") ?? "")?.[1];
  return (
    <html lang="en">
      <head>
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a constant script of ours with the CSP nonce, no user input. */}
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: ZOD_WITHOUT_EVAL }} />
      </head>
      <body>
        <QueryProvider>{children}</QueryProvider>
      </body>
    </html>
  );
}
