import { describe, expect, it } from "vitest";
import { findLiveSecret, generateSecret, hashSecret, type SecretLifetime } from "./secrets";

// findLiveSecret is the one check behind enrolment tokens, API tokens, invitations and share links: a presented
// secret counts only when it is well formed, known, not revoked and not expired.
const PREFIX = "thr_tst_";
const NOW = Date.parse("2026-11-28T00:00:00Z");

/** A store of one secret's row, found by its hash as the repositories find them; counts its lookups. */
function storeOf(secret: string, row: SecretLifetime) {
  const store = {
    lookups: 0,
    find: async (hash: string) => {
      store.lookups += 1;
      return hash === hashSecret(secret) ? row : undefined;
    },
  };
  return store;
}

describe("findLiveSecret", () => {
  const secret = generateSecret(PREFIX);
  const live = { revokedAt: null, expiresAt: new Date(NOW + 1) };

  it("answers the stored row of a well-formed, known, unrevoked secret before its expiry, or with no expiry", async () => {
    expect(await findLiveSecret(secret, PREFIX, storeOf(secret, live).find, NOW)).toBe(live);
    const forever = { revokedAt: null, expiresAt: null };
    expect(await findLiveSecret(secret, PREFIX, storeOf(secret, forever).find, NOW)).toBe(forever);
  });

  it("refuses a revoked secret, and one at or past its expiry", async () => {
    const revoked = { revokedAt: new Date(NOW - 1), expiresAt: null };
    expect(await findLiveSecret(secret, PREFIX, storeOf(secret, revoked).find, NOW)).toBeUndefined();
    const atExpiry = { revokedAt: null, expiresAt: new Date(NOW) };
    expect(await findLiveSecret(secret, PREFIX, storeOf(secret, atExpiry).find, NOW)).toBeUndefined();
  });

  it("refuses an unknown secret, and one of another prefix or with a typo without asking the store", async () => {
    const store = storeOf(secret, live);
    expect(await findLiveSecret(generateSecret(PREFIX), PREFIX, store.find, NOW)).toBeUndefined();
    expect(store.lookups).toBe(1);
    expect(await findLiveSecret(generateSecret("thr_oth_"), PREFIX, store.find, NOW)).toBeUndefined();
    const typo = `${secret.slice(0, -1)}${secret.endsWith("a") ? "b" : "a"}`;
    expect(await findLiveSecret(typo, PREFIX, store.find, NOW)).toBeUndefined();
    expect(store.lookups).toBe(1);
  });
});
