import { afterAll, beforeAll } from "vitest";
import { startTestDns } from "./test-dns";
import { startTestApi, type TestApi, type TestUser } from "./test-api";

/** What an SSO test signs in through: the API, the DNS server its domain proofs ask, the identity provider, an admin. */
export interface SsoBed<Idp> {
  api: TestApi;
  dns: Awaited<ReturnType<typeof startTestDns>>;
  idp: Idp;
  admin: TestUser;
}

/**
 * The test file's SSO bed: a DNS server and the identity provider `startIdp` starts, both on loopback, the API told
 * to ask that DNS server and to reach the provider at `idpOrigin` (a private address it would otherwise refuse), and
 * an admin signed up. Started before the file's tests, closed after them; call the function it returns inside a test.
 */
export function ssoBedPerFile<Idp extends { close(): Promise<void> }>(
  startIdp: () => Promise<Idp>,
  idpOrigin: (idp: Idp) => string,
): () => SsoBed<Idp> {
  const started: Partial<SsoBed<Idp>> = {};
  beforeAll(async () => {
    started.dns = await startTestDns();
    started.idp = await startIdp();
    started.api = await startTestApi({
      sso: { dnsServers: [started.dns.server], privateIdpOrigins: [idpOrigin(started.idp)] },
    });
    started.admin = await started.api.signUp("Admin");
  });
  afterAll(async () => {
    await started.api?.close();
    await started.idp?.close();
    started.dns?.close();
  });
  return () => {
    const { api, dns, idp, admin } = started;
    if (!api || !dns || !idp || !admin)
      throw new Error("the SSO bed is not up: call it inside a test, after beforeAll");
    return { api, dns, idp, admin };
  };
}
