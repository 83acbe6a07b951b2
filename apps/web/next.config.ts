import path from "node:path";
import { fileURLToPath } from "node:url";
import type { NextConfig } from "next";
import { COMMON_SECURITY_HEADERS, NON_DOCUMENT_CSP } from "./lib/server/security-headers";

const nonDocument = [...COMMON_SECURITY_HEADERS, { key: "Content-Security-Policy", value: NON_DOCUMENT_CSP }];

// Only the web image's build sets this (infra/docker/web.Dockerfile): a standalone build is server.js plus the
// node_modules files it needs, and Next.js says `next start` (what npm start and the e2e run) does not work with it.
const standalone = process.env.THRONG_WEB_STANDALONE === "1";

const nextConfig: NextConfig = {
  ...(standalone && {
    output: "standalone",
    // The repository root, so the traced files include the workspace's hoisted node_modules and packages/protocol.
    outputFileTracingRoot: path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../.."),
  }),
  // The protocol package ships TypeScript sources.
  transpilePackages: ["@throng/protocol"],
  // Gzip would buffer the proxied server-sent events and stall the live charts.
  compress: false,
  poweredByHeader: false,
  reactStrictMode: true,
  // Pages get their CSP (with a nonce) from proxy.ts; everything else gets one here.
  async headers() {
    return [
      { source: "/:path*", headers: [...COMMON_SECURITY_HEADERS] },
      { source: "/api/:path*", headers: nonDocument },
      { source: "/_next/static/:path*", headers: nonDocument },
      { source: "/_next/image", headers: nonDocument },
    ];
  },
};

export default nextConfig;
