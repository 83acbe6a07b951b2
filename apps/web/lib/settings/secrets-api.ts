// Typed calls for Settings → Secrets (routes in apps/api/src/routes/secrets.routes.ts). A value goes in and never
// comes back: there is no call that reads one.
import { SecretView, type PutSecret } from "@throng/protocol/secrets";
import { apiRequest, listOf } from "../shared/api-client";

const Secrets = listOf("secrets", SecretView);

export const secretsApi = {
  list: (signal?: AbortSignal) => apiRequest("GET", "/api/secrets", Secrets, undefined, signal),
  /** Creates the secret or replaces its value. */
  put: ({ name, value }: { name: string } & PutSecret) =>
    apiRequest("PUT", `/api/secrets/${encodeURIComponent(name)}`, SecretView, { value }),
  remove: (name: string) => apiRequest<void>("DELETE", `/api/secrets/${encodeURIComponent(name)}`, null),
};
