import type { Db } from "@throng/db/client";
import type { Repos } from "@throng/db/repos";

/** A new organisation written straight to the database (its slug is its id, so each is unique); returns its id. */
export async function seedOrg(db: Db): Promise<string> {
  const orgId = crypto.randomUUID();
  await db
    .insertInto("organization")
    .values({ id: orgId, name: "o", slug: orgId, logo: null, createdAt: new Date(), metadata: null })
    .execute();
  return orgId;
}

/** `count` enrolled agents of the organisation, written straight to the database; returns their ids. */
export async function seedAgents(repos: Repos, orgId: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => crypto.randomUUID());
  for (const id of ids) {
    await repos.fleet.insertAgent(orgId, {
      id,
      secretHash: "x",
      hostname: "rig",
      os: "linux",
      arch: "x64",
      cores: 1,
      memoryBytes: 1,
      version: "0.1.0",
      labels: {},
      ip: null,
    });
  }
  return ids;
}
