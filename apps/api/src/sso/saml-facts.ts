import { DOMParser, type Element } from "@xmldom/xmldom";
import * as samlify from "samlify";
import type { SamlResponseFacts } from "@throng/core/sso/saml-failure";

const ASSERTION_NS = "urn:oasis:names:tc:SAML:2.0:assertion";
const DSIG_NS = "http://www.w3.org/2000/09/xmldsig#";

const children = (parent: Element, ns: string, name: string): Element[] =>
  Array.from(parent.childNodes as ArrayLike<Element>).filter((n) => n.nodeType === 1 && n.localName === name && n.namespaceURI === ns);

/**
 * Reads a refused SAMLResponse (base64, as the IdP posted it) for the sign-in page's explanation: is the assertion
 * signed, does that signature verify against the IdP's metadata (samlify's check, the one the plugin runs), and its
 * validity window. Null when it is no readable SAML response with one assertion.
 */
export function readSamlResponseFacts(samlResponse: string, idpMetadataXml: string): SamlResponseFacts | null {
  try {
    const xml = Buffer.from(samlResponse.replace(/\s+/g, ""), "base64").toString("utf8");
    const document = new DOMParser({ onError: () => undefined }).parseFromString(xml, "text/xml");
    const root = document.documentElement;
    if (!root || root.localName !== "Response") return null;
    const [assertion] = children(root, ASSERTION_NS, "Assertion");
    if (!assertion) return null;
    const assertionSigned = children(assertion, DSIG_NS, "Signature").length === 1;
    let signatureVerifies = false;
    if (assertionSigned) {
      const idp = samlify.IdentityProvider({ metadata: idpMetadataXml });
      // Only the assertion's own signature counts, as for the plugin: the response's is taken off first.
      for (const signature of children(root, DSIG_NS, "Signature")) root.removeChild(signature);
      try {
        signatureVerifies = samlify.SamlLib.verifySignature(document.toString(), { metadata: idp.entityMeta })[0];
      } catch {
        signatureVerifies = false;
      }
    }
    const [conditions] = children(assertion, ASSERTION_NS, "Conditions");
    const confirmation = children(assertion, ASSERTION_NS, "Subject").flatMap((s) => children(s, ASSERTION_NS, "SubjectConfirmation")).flatMap((c) => children(c, ASSERTION_NS, "SubjectConfirmationData"))[0];
    const attr = (name: string) => conditions?.getAttribute(name) || confirmation?.getAttribute(name) || null;
    return { assertionSigned, signatureVerifies, notBefore: attr("NotBefore"), notOnOrAfter: attr("NotOnOrAfter") };
  } catch {
    return null;
  }
}
