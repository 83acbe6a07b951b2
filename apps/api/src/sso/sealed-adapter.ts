import type { DBAdapter } from "@better-auth/core/db/adapter";
import type { Sealer } from "@throng/core/metrics-export/sealed-secrets";
import { openPluginConfig } from "@throng/core/sso/sso-config";

/**
 * Better Auth's database adapter with the SSO plugin's secrets opened on the way out: Throng writes "ssoProvider"
 * rows with the OIDC client secret and the SAML key sealed, and the plugin reads them through this adapter at
 * sign-in (the only place they are used). Every other model and call passes through untouched.
 */
export function sealedSsoAdapter(inner: DBAdapter, sealer: Sealer): DBAdapter {
  const open = <T>(model: string, row: T): T => {
    if (model !== "ssoProvider" || !row || typeof row !== "object") return row;
    const r = row as Record<string, unknown>;
    return {
      ...r,
      oidcConfig: openPluginConfig(sealer, r.oidcConfig),
      samlConfig: openPluginConfig(sealer, r.samlConfig),
    } as T;
  };
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === "findOne")
        return async (args: Parameters<DBAdapter["findOne"]>[0]) => open(args.model, await target.findOne(args));
      if (prop === "findMany")
        return async (args: Parameters<DBAdapter["findMany"]>[0]) =>
          (await target.findMany(args)).map((row) => open(args.model, row));
      if (prop === "update")
        return async (args: Parameters<DBAdapter["update"]>[0]) => open(args.model, await target.update(args));
      if (prop === "transaction") {
        return <R>(callback: (trx: Parameters<Parameters<DBAdapter["transaction"]>[0]>[0]) => Promise<R>) =>
          target.transaction((trx) => callback(sealedSsoAdapter(trx as DBAdapter, sealer) as typeof trx));
      }
      return Reflect.get(target, prop, receiver);
    },
  });
}
