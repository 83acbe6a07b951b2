import type { Metadata, Viewport } from "next";
import { connection } from "next/server";
import type { ReactNode } from "react";
import { QueryProvider } from "../components/query-provider";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Throng", template: "%s · Throng" },
  description: "Load tests for realtime and game servers",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

// Rendered per request: Next can only put proxy.ts's CSP nonce on its scripts while rendering a request.
export default async function RootLayout({ children }: { children: ReactNode }) {
  await connection();
  return (
    <html lang="en">
      <body>
        <QueryProvider>{children}</QueryProvider>
      </body>
    </html>
  );
}
