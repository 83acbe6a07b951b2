import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

function base62(bytes: Buffer): string {
  let out = "";
  for (const byte of bytes) out += ALPHABET[byte % 62];
  return out;
}

function checksum(body: string): string {
  return base62(createHash("sha256").update(body).digest().subarray(0, 6));
}

/**
 * A prefixed secret (`thr_enr_<random>_<checksum>`): the prefix makes a leaked one recognisable,
 * the checksum lets us reject typos without a database lookup.
 */
export function generateSecret(prefix: string): string {
  const body = `${prefix}${base62(randomBytes(32))}`;
  return `${body}_${checksum(body)}`;
}

/** True when the secret has the prefix and its checksum matches. */
export function isWellFormedSecret(secret: string, prefix: string): boolean {
  if (!secret.startsWith(prefix)) return false;
  const cut = secret.lastIndexOf("_");
  if (cut <= prefix.length) return false;
  return checksum(secret.slice(0, cut)) === secret.slice(cut + 1);
}

/** Secrets are stored as SHA-256: they are long random strings, so a slow hash adds nothing. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** What a stored secret's row says of its life: when it was revoked, and until when it works (null: no end). */
export interface SecretLifetime {
  revokedAt: Date | null;
  expiresAt: Date | null;
}

/**
 * The stored row of a presented secret (a token, a link) that is well formed, known, not revoked and not expired at
 * `nowMs`; otherwise undefined, so that the caller refuses all of these alike and tells a guesser nothing.
 */
export async function findLiveSecret<Row extends SecretLifetime>(
  secret: string,
  prefix: string,
  findByHash: (hash: string) => Promise<Row | undefined>,
  nowMs: number,
): Promise<Row | undefined> {
  if (!isWellFormedSecret(secret, prefix)) return undefined;
  const row = await findByHash(hashSecret(secret));
  if (!row || row.revokedAt || (row.expiresAt && row.expiresAt.getTime() <= nowMs)) return undefined;
  return row;
}

export function secretMatchesHash(secret: string, hash: string): boolean {
  const a = Buffer.from(hashSecret(secret), "hex");
  const b = Buffer.from(hash, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}

export const ENROLMENT_TOKEN_PREFIX = "thr_enr_";
export const AGENT_SECRET_PREFIX = "thr_agt_";
