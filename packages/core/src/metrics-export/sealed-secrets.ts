import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/** A dedicated key (base64 of 32 bytes) when one is set, else one derived from AUTH_SECRET for `purpose` with HKDF-SHA256. */
function sealingKey(input: { authSecret: string; dedicatedKey?: string }, variable: string, purpose: string): Buffer {
  if (input.dedicatedKey) {
    const key = Buffer.from(input.dedicatedKey, "base64");
    if (key.length !== 32) throw new Error(`${variable} must be 32 bytes in base64 (openssl rand -base64 32)`);
    return key;
  }
  return Buffer.from(hkdfSync("sha256", input.authSecret, "throng", purpose, 32));
}

/**
 * The 32-byte key metrics-sink credentials are sealed with: a dedicated key when one is set (base64 of 32 bytes,
 * so AUTH_SECRET can rotate without losing them), else derived from AUTH_SECRET with HKDF-SHA256.
 */
export function credentialsKey(input: { authSecret: string; dedicatedKey?: string }): Buffer {
  return sealingKey(input, "METRICS_EXPORT_KEY", "metrics-export credentials v1");
}

/** The key organisation secrets are sealed with: SECRETS_KEY when set, else derived from AUTH_SECRET (a key of its own). */
export function orgSecretsKey(input: { authSecret: string; dedicatedKey?: string }): Buffer {
  return sealingKey(input, "SECRETS_KEY", "organisation secrets v1");
}

/** AES-256-GCM with a fresh 96-bit IV per value; the sealed form is `iv.tag.ciphertext` in base64url. */
export function createSealer(key: Buffer) {
  return {
    seal(plaintext: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return [iv, cipher.getAuthTag(), body].map((part) => part.toString("base64url")).join(".");
    },
    /** Throws when the value was sealed with another key or altered. */
    open(sealed: string): string {
      const [iv, tag, body] = sealed.split(".").map((part) => Buffer.from(part, "base64url"));
      if (!iv || !tag || !body) throw new Error("not a sealed value");
      const decipher = createDecipheriv("aes-256-gcm", key, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
    },
  };
}
export type Sealer = ReturnType<typeof createSealer>;
