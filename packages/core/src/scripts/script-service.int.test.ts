import { describe, expect, it } from "vitest";
import { useTestDatabase } from "@throng/db/vitest-database";
import { UpdatePlan } from "@throng/protocol/api";
import { ThrongError } from "@throng/protocol/errors";
import { OrgSettings } from "@throng/protocol/orgs";
import { PlanSpec } from "@throng/protocol/plan";
import type { Actor } from "../orgs/permissions";
import { createPlanService } from "../plans/plan-service";
import { SCRIPT_NOT_STORED, SCRIPT_PATH_REFUSED } from "./plan-scripts";
import { createScriptService, scriptSha256 } from "./script-service";

const { db, repos } = await useTestDatabase({ max: 3 });

async function actorIn(role: Actor["role"] = "member"): Promise<Actor> {
  const orgId = crypto.randomUUID();
  const userId = crypto.randomUUID();
  await db
    .insertInto("organization")
    .values({ id: orgId, name: "o", slug: orgId, logo: null, createdAt: new Date(), metadata: null })
    .execute();
  await db
    .insertInto("user")
    .values({
      id: userId,
      name: "u",
      email: `${userId}@example.com`,
      emailVerified: false,
      image: null,
      createdAt: new Date(),
      updatedAt: new Date(),
    })
    .execute();
  return { orgId, role, userId, label: "u", via: "session" };
}

const scriptPlan = (script: { sha256: string } | { path: string }) =>
  PlanSpec.parse({
    name: "bots",
    target: { protocol: "websocket", url: "ws://127.0.0.1:1/" },
    scenario: { kind: "script", script },
    load: { clients: 2, durationSec: 1 },
  });

async function refusal(promise: Promise<unknown>): Promise<ThrongError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ThrongError);
  return error as ThrongError;
}

describe("script bundles (real PostgreSQL)", () => {
  const scripts = () => createScriptService({ scripts: repos.scripts });

  it("stores a bundle under the SHA-256 of its UTF-8 bytes; the same bytes again answer the stored one, not a copy", async () => {
    const actor = await actorIn();
    const source = "export default async function client(ctx) { ctx.count('héllo', 1); }\n";
    const first = await scripts().upload(actor, { name: "bots.mjs", source });
    expect(first.created).toBe(true);
    expect(first.script).toMatchObject({
      sha256: scriptSha256(source),
      name: "bots.mjs",
      sizeBytes: Buffer.byteLength(source),
    });
    expect(first.script.sizeBytes).toBe(source.length + 1); // é is two bytes
    const again = await scripts().upload(actor, { name: "renamed.mjs", source });
    expect(again).toEqual({ script: first.script, created: false });
    expect(await scripts().list(actor)).toEqual([first.script]);
    expect(await scripts().get(actor, first.script.sha256)).toEqual({ ...first.script, source });
  });

  it("keeps organisations apart: another org lists nothing, reads not_found, and its agents get no source", async () => {
    const [a, b] = [await actorIn(), await actorIn()];
    const { script } = await scripts().upload(a, { name: "a.mjs", source: "export default async () => {};" });
    expect(await scripts().list(b)).toEqual([]);
    expect((await refusal(scripts().get(b, script.sha256))).code).toBe("not_found");
    expect(await scripts().sourceForAgent(b.orgId, script.sha256)).toBeUndefined();
    expect(await scripts().sourceForAgent(a.orgId, script.sha256.toUpperCase())).toBe("export default async () => {};");
  });

  // A bad body is refused by the route's schema before this is called (apps/api/src/scripts.int.test.ts).
  it("uploading takes plan.write (a viewer may read, not upload)", async () => {
    const viewer = await actorIn("viewer");
    expect((await refusal(scripts().upload(viewer, { name: "x.mjs", source: "x" }))).code).toBe("forbidden");
    expect(await scripts().list(viewer)).toEqual([]);
  });

  it("a plan is saved only with a script its org has uploaded, and never with a path on the agent's host", async () => {
    const [a, b] = [await actorIn(), await actorIn()];
    const plans = createPlanService({
      plans: repos.plans,
      runs: repos.runs,
      scripts: scripts(),
      secrets: repos.secrets,
      settings: async () => OrgSettings.parse({}),
    });
    const { script } = await scripts().upload(a, { name: "a.mjs", source: "export default async () => {};" });
    expect((await plans.create(a, scriptPlan({ sha256: script.sha256.toUpperCase() }))).spec.scenario.kind).toBe(
      "script",
    );

    const otherOrg = await refusal(plans.create(b, scriptPlan({ sha256: script.sha256 })));
    expect(otherOrg.code).toBe("validation_failed");
    expect(otherOrg.fields).toEqual([{ path: "scenario.script.sha256", message: SCRIPT_NOT_STORED }]);

    const byPath = await refusal(plans.create(a, scriptPlan({ path: "bots.mjs" })));
    expect(byPath.fields).toEqual([{ path: "scenario.script.path", message: SCRIPT_PATH_REFUSED }]);

    const saved = await plans.create(a, scriptPlan({ sha256: script.sha256 }));
    const update = await refusal(
      plans.update(
        a,
        saved.id,
        UpdatePlan.parse({ version: saved.version, spec: scriptPlan({ sha256: "0".repeat(64) }) }),
      ),
    );
    expect(update.fields?.[0]?.path).toBe("scenario.script.sha256");
  });
});
