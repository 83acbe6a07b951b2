import { XMLParser } from "fast-xml-parser";
import * as samlify from "samlify";
import type { SamlResponseFacts } from "@throng/core/sso/saml-failure";

// fast-xml-parser, not xmldom: tsconfig maps @xmldom/xmldom to a types-only stand-in, which tsx honours at run time.
const parser = new XMLParser({ ignoreAttributes: false, removeNSPrefix: true, attributeNamePrefix: "@_" });
type XmlNode = Record<string, unknown> | undefined;
const first = (value: unknown): XmlNode => (Array.isArray(value) ? value[0] : value) as XmlNode;

/** The response's own signature (before its assertion) taken off, so only the assertion's signature is checked. */
function withoutEnvelopeSignature(xml: string): string {
  const assertionAt = xml.search(/<(\w+:)?Assertion[\s>]/);
  if (assertionAt < 0) return xml;
  return (
    xml.slice(0, assertionAt).replace(/<(\w+:)?Signature[\s>][\s\S]*?<\/(\w+:)?Signature>/, "") + xml.slice(assertionAt)
  );
}

/**
 * Reads a refused SAMLResponse (base64, as the IdP posted it) for the sign-in page's explanation only (the plugin
 * did the refusing): is the assertion signed, does that signature verify against the IdP's metadata (samlify's
 * check, as the plugin runs it), and its validity window. Null when it is no readable SAML response.
 */
export function readSamlResponseFacts(samlResponse: string, idpMetadataXml: string): SamlResponseFacts | null {
  try {
    const xml = Buffer.from(samlResponse.replace(/\s+/g, ""), "base64").toString("utf8");
    const assertion = first(first((parser.parse(xml) as Record<string, unknown>).Response)?.Assertion);
    if (!assertion) return null;
    const assertionSigned = assertion.Signature !== undefined;
    let signatureVerifies = false;
    if (assertionSigned) {
      try {
        const idp = samlify.IdentityProvider({ metadata: idpMetadataXml });
        signatureVerifies = samlify.SamlLib.verifySignature(withoutEnvelopeSignature(xml), {
          metadata: idp.entityMeta,
        })[0];
      } catch {
        signatureVerifies = false;
      }
    }
    const conditions = first(assertion.Conditions);
    const confirmation = first(first(first(assertion.Subject)?.SubjectConfirmation)?.SubjectConfirmationData);
    const attr = (name: string) => (conditions?.[`@_${name}`] ?? confirmation?.[`@_${name}`] ?? null) as string | null;
    return { assertionSigned, signatureVerifies, notBefore: attr("NotBefore"), notOnOrAfter: attr("NotOnOrAfter") };
  } catch {
    return null;
  }
}
