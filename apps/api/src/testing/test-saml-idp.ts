import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import * as samlify from "samlify";
// samlify parses nothing until an XML schema validator is set; Better Auth's SSO plugin sets one when it loads (on
// the samlify Throng uses). Loading it here gives a journey's process, which has no Throng API in it, the same one.
import "@better-auth/sso";

/** A person the SAML identity provider knows, by the email they type on its sign-in page. */
export interface SamlIdpAccount {
  email: string;
  name: string;
  groups: string[];
}

/**
 * How the identity provider misbehaves for one sign-in (the negative tests): `tampered` changes the signed
 * assertion's email after signing (a forged assertion), `unsigned` signs only the response envelope, not the
 * assertion, `expired` sends an assertion whose validity ended an hour ago, `skewed` one whose validity starts
 * ten minutes from now (the IdP's clock is ahead of Throng's by more than the five minutes allowed); `ahead` is a
 * sound assertion from an IdP whose clock runs two minutes ahead (within the allowance).
 */
export type SamlFault = "none" | "tampered" | "unsigned" | "expired" | "skewed" | "ahead";
export const SAML_FAULTS: SamlFault[] = ["none", "tampered", "unsigned", "expired", "skewed", "ahead"];

const run = promisify(execFile);
const { binding } = samlify.Constants.namespace;
const EMAIL_FORMAT = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";

/** A throwaway RSA key and self-signed certificate for the IdP's signatures, made by `openssl` (no key is committed). */
async function signingKey(): Promise<{ key: string; cert: string }> {
  const dir = await mkdtemp(join(tmpdir(), "throng-saml-idp-"));
  try {
    await run("openssl", [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "2",
      "-subj",
      "/CN=throng test saml idp",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
    ]);
    return { key: await readFile(join(dir, "key.pem"), "utf8"), cert: await readFile(join(dir, "cert.pem"), "utf8") };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const escapeXml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const escapeHtml = escapeXml;

/** samlify's template tags `{Name}` filled with escaped values (its SamlLib is not reachable under every loader). */
const fillTags = (template: string, values: Record<string, string>) =>
  template.replace(/\{(\w+)\}/g, (tag, name: string) => (name in values ? escapeXml(values[name]!) : tag));

function attributeStatement(account: SamlIdpAccount): string {
  const attribute = (name: string, values: string[]) =>
    `<saml:Attribute Name="${name}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">${values.map((v) => `<saml:AttributeValue xsi:type="xs:string">${escapeXml(v)}</saml:AttributeValue>`).join("")}</saml:Attribute>`;
  return `<saml:AttributeStatement>${attribute("email", [account.email])}${attribute("displayName", [account.name])}${account.groups.length ? attribute("groups", account.groups) : ""}</saml:AttributeStatement>`;
}

async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return new URLSearchParams(text);
}

/**
 * A real SAML 2.0 identity provider on loopback, built with samlify (the library Better Auth's SSO plugin reads
 * SAML with): metadata at /metadata, the HTTP-Redirect SSO endpoint at /sso showing a sign-in page (email and a
 * "fault" for the negative tests), and the HTTP-POST answer — a page whose form posts the signed SAMLResponse and
 * the RelayState to the service provider's ACS, as real IdPs do. The service provider is registered by the test
 * once Throng has named its entity ID and ACS URL.
 */
export async function startTestSamlIdp(accounts: SamlIdpAccount[]) {
  const byEmail = new Map(accounts.map((a) => [a.email, a]));
  const { key, cert } = await signingKey();
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const idp = samlify.IdentityProvider({
    entityID: `${origin}/metadata`,
    privateKey: key,
    signingCert: cert,
    nameIDFormat: [EMAIL_FORMAT],
    singleSignOnService: [{ Binding: binding.redirect, Location: `${origin}/sso` }],
    wantAuthnRequestsSigned: false,
  });
  const metadata = idp.getMetadata();
  let sp: { entityId: string; acsUrl: string } | null = null;
  const serviceProvider = (wantAssertionsSigned: boolean) =>
    samlify.ServiceProvider({
      entityID: sp!.entityId,
      wantAssertionsSigned,
      assertionConsumerService: [{ Binding: binding.post, Location: sp!.acsUrl }],
    });

  async function answer(
    account: SamlIdpAccount,
    fault: SamlFault,
    requestId: string,
    relayState: string,
  ): Promise<string> {
    const now = Date.now();
    const at = (offsetMs: number) => new Date(now + offsetMs).toISOString();
    const window =
      fault === "expired"
        ? { from: at(-3_900_000), to: at(-3_600_000) }
        : fault === "skewed"
          ? { from: at(600_000), to: at(900_000) }
          : fault === "ahead"
            ? { from: at(120_000), to: at(420_000) }
            : { from: at(-5_000), to: at(300_000) };
    const response = (await idp.createLoginResponse(
      serviceProvider(fault !== "unsigned"),
      { extract: { request: { id: requestId } } },
      "post",
      { email: account.email },
      {
        relayState,
        customTagReplacement: (template: string) => {
          const id = `_${crypto.randomUUID()}`;
          const withStatements = template
            .replace("{AttributeStatement}", attributeStatement(account))
            .replace(
              "{AuthnStatement}",
              `<saml:AuthnStatement AuthnInstant="${at(0)}" SessionIndex="${id}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`,
            );
          const context = fillTags(withStatements, {
            ID: id,
            AssertionID: `_${crypto.randomUUID()}`,
            Destination: sp!.acsUrl,
            Audience: sp!.entityId,
            SubjectRecipient: sp!.acsUrl,
            Issuer: idp.entityMeta.getEntityID(),
            IssueInstant: window.from,
            StatusCode: samlify.Constants.StatusCode.Success,
            ConditionsNotBefore: window.from,
            ConditionsNotOnOrAfter: window.to,
            SubjectConfirmationDataNotOnOrAfter: window.to,
            NameIDFormat: EMAIL_FORMAT,
            NameID: account.email,
            InResponseTo: requestId,
          });
          return { id, context };
        },
      },
    )) as { context: string; relayState?: string };
    let samlResponse = response.context;
    if (fault === "tampered") {
      // An attacker who holds a signed assertion for themselves rewrites whose it is; the signature no longer matches.
      const xml = Buffer.from(samlResponse, "base64")
        .toString("utf8")
        .replaceAll(escapeXml(account.email), `ceo@${account.email.split("@")[1]}`);
      samlResponse = Buffer.from(xml, "utf8").toString("base64");
    }
    return `<!doctype html><html><head><title>Signing in</title></head><body onload="document.forms[0].submit()">
<form method="post" action="${escapeHtml(sp!.acsUrl)}"><input type="hidden" name="SAMLResponse" value="${escapeHtml(samlResponse)}"><input type="hidden" name="RelayState" value="${escapeHtml(relayState)}"><noscript><button>Continue</button></noscript></form></body></html>`;
  }

  server.on("request", (req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", origin);
      if (url.pathname === "/favicon.ico") {
        res.writeHead(204).end();
        return;
      }
      if (url.pathname === "/metadata") {
        res.writeHead(200, { "content-type": "application/samlmetadata+xml" }).end(metadata);
        return;
      }
      if (url.pathname === "/sso" && req.method === "GET") {
        if (!sp) throw new Error("the test SAML IdP has no service provider registered");
        const request = await idp.parseLoginRequest(serviceProvider(true), "redirect", {
          query: Object.fromEntries(url.searchParams),
          octetString: "",
        } as never);
        const requestId = String((request.extract as { request?: { id?: string } }).request?.id ?? "");
        const relayState = url.searchParams.get("RelayState") ?? "";
        res
          .writeHead(200, { "content-type": "text/html; charset=utf-8" })
          .end(`<!doctype html><html><head><title>Test SAML IdP</title></head><body>
<h1>Test SAML IdP</h1><form method="post" action="/sso/login">
<input type="hidden" name="requestId" value="${escapeHtml(requestId)}"><input type="hidden" name="RelayState" value="${escapeHtml(relayState)}">
<label>Email <input name="email" type="email"></label>
<label>Fault <select name="fault">${SAML_FAULTS.map((f) => `<option>${f}</option>`).join("")}</select></label>
<button type="submit">Sign in</button></form></body></html>`);
        return;
      }
      if (url.pathname === "/sso/login" && req.method === "POST") {
        const form = await formBody(req);
        const account = byEmail.get(form.get("email") ?? "");
        if (!account) {
          res.writeHead(403, { "content-type": "text/plain" }).end(`the test SAML IdP knows no ${form.get("email")}`);
          return;
        }
        const fault = (SAML_FAULTS as string[]).includes(form.get("fault") ?? "")
          ? (form.get("fault") as SamlFault)
          : "none";
        res
          .writeHead(200, { "content-type": "text/html; charset=utf-8" })
          .end(await answer(account, fault, form.get("requestId") ?? "", form.get("RelayState") ?? ""));
        return;
      }
      res.writeHead(404).end();
    })().catch((error: Error) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(error.message);
    });
  });

  return {
    origin,
    metadataUrl: `${origin}/metadata`,
    metadata,
    /** Registers Throng as the service provider, with the entity ID and ACS URL its settings answer. */
    registerServiceProvider(details: { entityId: string; acsUrl: string }) {
      sp = details;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
