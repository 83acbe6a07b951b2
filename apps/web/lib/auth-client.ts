"use client";

import { createAuthClient } from "better-auth/react";

function create() {
  // Better Auth runs in the API; the browser reaches it through this origin's /api proxy.
  return createAuthClient({ baseURL: window.location.origin, basePath: "/api/auth" });
}

let client: ReturnType<typeof create> | null = null;

/** The Better Auth client, created on first use in the browser (it needs window.location). */
export function authClient(): ReturnType<typeof create> {
  client ??= create();
  return client;
}
