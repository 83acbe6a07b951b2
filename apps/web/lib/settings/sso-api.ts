// Typed calls for Settings → Single sign-on (routes in apps/api/src/routes/sso.routes.ts). A client secret or SAML
// key goes in and never comes back: the settings answer only says whether one is set.
import {
  PutSsoProviderEnabled,
  PutSsoRequirement,
  SsoDomainView,
  SsoProviderView,
  SsoSettings,
  type PutSsoProvider,
} from "@throng/protocol/sso";
import { apiRequest } from "../shared/api-client";
import { queryKeys } from "../shared/query-keys";

/** What every SSO change makes stale: the SSO settings, and the audit log that records the change. */
export const SSO_CHANGED = [queryKeys.sso, queryKeys.audit];

const domainPath = (domain: string) => `/api/sso/domains/${encodeURIComponent(domain)}`;
const providerPath = (id: string) => `/api/sso/providers/${encodeURIComponent(id)}`;

export const ssoApi = {
  settings: (signal?: AbortSignal) => apiRequest("GET", "/api/sso", SsoSettings, undefined, signal),
  setRequirement: (requireSso: boolean) => apiRequest("PUT", "/api/sso/requirement", PutSsoRequirement, { requireSso }),
  addDomain: (domain: string) => apiRequest("POST", "/api/sso/domains", SsoDomainView, { domain }),
  /** Throng looks the TXT record up now. */
  verifyDomain: (domain: string) => apiRequest("POST", `${domainPath(domain)}/verify`, SsoDomainView),
  removeDomain: (domain: string) => apiRequest<void>("DELETE", domainPath(domain), null),
  addProvider: (body: PutSsoProvider) => apiRequest("POST", "/api/sso/providers", SsoProviderView, body),
  /** A secret left out keeps the stored one. */
  changeProvider: ({ id, body }: { id: string; body: PutSsoProvider }) =>
    apiRequest("PUT", providerPath(id), SsoProviderView, body),
  setProviderEnabled: ({ id, enabled }: { id: string; enabled: boolean }) =>
    apiRequest("PUT", `${providerPath(id)}/enabled`, PutSsoProviderEnabled, { enabled }),
  removeProvider: (id: string) => apiRequest<void>("DELETE", providerPath(id), null),
};
