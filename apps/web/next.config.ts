import type { NextConfig } from "next";
import { COMMON_SECURITY_HEADERS, NON_DOCUMENT_CSP } from "./lib/security-headers";

const nonDocument = [...COMMON_SECURITY_HEADERS, { key: "Content-Security-Policy", value: NON_DOCUMENT_CSP }];

const nextConfig: NextConfig = {
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
