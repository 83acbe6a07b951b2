import { generateKeyPairSync } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type Adapter, type AdapterPayload } from "oidc-provider";

/** A person the identity provider knows, by the email they sign in with. */
export interface IdpAccount {
  email: string;
  name: string;
  groups: string[];
  /** The email the provider puts in its claims, when not `email` (a provider vouching for another company's person). */
  claimedEmail?: string;
}

/** oidc-provider's storage, in memory; clients live here too so a test can register one after it learns its redirect URI. */
function memoryAdapter(store: Map<string, AdapterPayload>) {
  return class MemoryAdapter implements Adapter {
    constructor(private readonly model: string) {}
    private key(id: string) {
      return `${this.model}:${id}`;
    }
    async upsert(id: string, payload: AdapterPayload) {
      store.set(this.key(id), payload);
    }
    async find(id: string) {
      return store.get(this.key(id));
    }
    async findByUserCode(userCode: string) {
      return [...store.values()].find((p) => p.userCode === userCode);
    }
    async findByUid(uid: string) {
      return [...store.entries()].find(([key, p]) => key.startsWith(`${this.model}:`) && p.uid === uid)?.[1];
    }
    async consume(id: string) {
      const payload = store.get(this.key(id));
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string) {
      store.delete(this.key(id));
    }
    async revokeByGrantId(grantId: string) {
      for (const [key, payload] of store) if (payload.grantId === grantId) store.delete(key);
    }
  };
}

/**
 * A real OpenID Connect provider (panva's oidc-provider) on loopback. Its sign-in page is skipped: the interaction
 * signs in the account named by the request's login_hint (Throng passes the work email) and grants the scopes asked.
 */
export async function startTestOidcIdp(accounts: IdpAccount[]) {
  const store = new Map<string, AdapterPayload>();
  const byEmail = new Map(accounts.map((a) => [a.email, a]));
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const jwk = {
    ...generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" }),
    kid: "test-key",
    use: "sig",
    alg: "RS256",
  };
  const provider = new Provider(issuer, {
    adapter: memoryAdapter(store),
    jwks: { keys: [jwk as never] },
    cookies: { keys: ["test-idp-cookie-key"] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"], groups: ["groups"] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx, sub) {
      const account = byEmail.get(sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        claims: async () => ({
          sub,
          email: account.claimedEmail ?? account.email,
          email_verified: true,
          name: account.name,
          groups: account.groups,
        }),
      };
    },
  });
  const callback = provider.callback();
  server.on("request", (req, res) => {
    if (!req.url?.startsWith("/interaction/")) return callback(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      const accountId = String(details.params.login_hint ?? "");
      if (!byEmail.has(accountId)) throw new Error(`the test IdP knows no ${accountId}`);
      const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      const grantId = await grant.save();
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId }, consent: { grantId } },
        { mergeWithLastSubmission: false },
      );
    })().catch((error: Error) => {
      res.statusCode = 500;
      res.end(error.message);
    });
  });
  return {
    issuer,
    /** Registers Throng as a confidential client with the redirect URI its settings page shows. */
    registerClient(client: { clientId: string; clientSecret: string; redirectUri: string }) {
      store.set(`Client:${client.clientId}`, {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uris: [client.redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
