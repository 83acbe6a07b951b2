import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // The protocol package ships TypeScript sources.
  transpilePackages: ["@throng/protocol"],
  // Gzip would buffer the proxied server-sent events and stall the live charts.
  compress: false,
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
