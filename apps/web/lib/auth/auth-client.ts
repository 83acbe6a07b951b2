"use client";

import { createAuthClient } from "better-auth/react";
import { quietFetch } from "../shared/quiet-refusal";

function create() {
  // Better Auth runs in the API; the browser reaches it through this origin's /api proxy.
  // A wrong password is a refusal the form shows, not a console error (quiet-refusal.ts).
  return createAuthClient({
    baseURL: window.location.origin,
    basePath: "/api/auth",
    fetchOptions: { customFetchImpl: quietFetch },
  });
}

let client: ReturnType<typeof create> | null = null;

/** The Better Auth client, created on first use in the browser (it needs window.location). */
export function authClient(): ReturnType<typeof create> {
  client ??= create();
  return client;
}
