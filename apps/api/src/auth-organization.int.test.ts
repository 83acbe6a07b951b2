import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Me } from "@throng/protocol/api";
import { startTestApi, WEB_ORIGIN, type TestApi, type TestUser } from "./testing/test-api";

// Better Auth's organization plugin routes (issue 27 §4): live, so in the OpenAPI document (and walked by the isolation
// suite); check-slug is off and a slug given to create or update gets a suffix of its own, so no answer tells whether
// another organisation's slug exists; and naming another organisation's id gets nothing of it.

let api: TestApi;
let victim: TestUser;
let intruder: TestUser;
let victimOrg: Me["organization"];

beforeAll(async () => {
  api = await startTestApi();
  victim = await api.signUp("Victim");
  intruder = await api.signUp("Intruder");
  victimOrg = Me.parse((await victim.request("GET", "/api/me")).json).organization;
});
afterAll(async () => {
  await api?.close();
});

describe("Better Auth's organization routes", () => {
  it("are in the OpenAPI document, for signed-in callers, with Better Auth's own request bodies", async () => {
    const doc = (await (await fetch(`${api.url}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, { "x-access": string; requestBody?: { content: { "application/json": { schema: { properties?: Record<string, unknown> } } } } }>> };
    const paths = Object.keys(doc.paths).filter((path) => path.startsWith("/api/auth/organization/"));
    expect(paths).toEqual(expect.arrayContaining(["/api/auth/organization/create", "/api/auth/organization/list", "/api/auth/organization/list-members", "/api/auth/organization/update-member-role"]));
    expect(paths).not.toContain("/api/auth/organization/check-slug");
    const create = doc.paths["/api/auth/organization/create"]!.post!;
    expect(create["x-access"]).toBe("signed-in");
    expect(Object.keys(create.requestBody!.content["application/json"].schema.properties ?? {})).toEqual(expect.arrayContaining(["name", "slug"]));
  });

  it("check-slug is off: the same 404 for another organisation's slug as for a free one", async () => {
    const checkSlug = async (slug: string) => {
      const response = await fetch(`${api.url}/api/auth/organization/check-slug`, {
        method: "POST", headers: { origin: WEB_ORIGIN, cookie: await intruder.cookie(), "content-type": "application/json" }, body: JSON.stringify({ slug }),
      });
      return { status: response.status, text: await response.text() };
    };
    const taken = await checkSlug(victimOrg.slug);
    expect(taken.status).toBe(404);
    expect(await checkSlug(`free-${crypto.randomUUID().slice(0, 8)}`)).toEqual(taken);
  });

  it("create and update take another organisation's slug as a base for one of their own, instead of saying it is taken", async () => {
    const created = await intruder.request("POST", "/api/auth/organization/create", { name: "Copycat", slug: victimOrg.slug, keepCurrentActiveOrganization: true });
    expect(created.status).toBe(200);
    expect(created.json.slug).toMatch(new RegExp(`^${victimOrg.slug}-[0-9a-f]{8}$`));
    const updated = await intruder.request("POST", "/api/auth/organization/update", { organizationId: created.json.id, data: { slug: victimOrg.slug } });
    expect(updated.status).toBe(200);
    expect(updated.json.slug).toMatch(new RegExp(`^${victimOrg.slug}-[0-9a-f]{8}$`));
    expect(Me.parse((await victim.request("GET", "/api/me")).json).organization.slug).toBe(victimOrg.slug);
  });

  it("naming another organisation's id reads and changes nothing of it", async () => {
    const attempts = [
      await intruder.request("GET", `/api/auth/organization/get-full-organization?organizationId=${victimOrg.id}`),
      await intruder.request("GET", `/api/auth/organization/list-members?organizationId=${victimOrg.id}`),
      await intruder.request("POST", "/api/auth/organization/set-active", { organizationId: victimOrg.id }),
      await intruder.request("POST", "/api/auth/organization/update", { organizationId: victimOrg.id, data: { name: "taken over" } }),
      await intruder.request("POST", "/api/auth/organization/invite-member", { organizationId: victimOrg.id, email: "mole@example.com", role: "admin" }),
    ];
    for (const answer of attempts) {
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(JSON.stringify(answer.json ?? "")).not.toContain(victim.email);
    }
    expect(Me.parse((await victim.request("GET", "/api/me")).json).organization.name).toBe(victimOrg.name);
    expect(Me.parse((await intruder.request("GET", "/api/me")).json).organization.id).not.toBe(victimOrg.id);
  });
});
