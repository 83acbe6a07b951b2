import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Me } from "@throng/protocol/api";
import { DISABLED_AUTH_PATHS } from "./auth";
import { startTestApi, WEB_ORIGIN, type TestApi, type TestUser } from "./testing/test-api";

// Better Auth's organization plugin routes (issue 27 §4) were live beside Throng's own /api/orgs, /api/members and
// /api/invitations, outside the OpenAPI document, the permission matrix and the audit log; check-slug told whether
// another organisation's slug exists, and the API fuzzer made list-members and update answer 500. Every one is off.

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

async function ask(user: TestUser, path: string, method: "GET" | "POST", body?: unknown) {
  const response = await fetch(`${api.url}/api/auth${path}`, {
    method,
    headers: {
      origin: WEB_ORIGIN,
      cookie: await user.cookie(),
      ...(body ? { "content-type": "application/json" } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, text: await response.text() };
}

describe("Better Auth's organization routes", () => {
  it("every one answers 404 to a signed-in owner, and the OpenAPI document lists none", async () => {
    expect(DISABLED_AUTH_PATHS).toEqual(
      expect.arrayContaining([
        "/organization/create",
        "/organization/list-members",
        "/organization/update",
        "/organization/check-slug",
        "/organization/set-active",
      ]),
    );
    for (const path of DISABLED_AUTH_PATHS) {
      expect((await ask(victim, path, "GET")).status, `GET ${path}`).toBe(404);
      expect(
        (
          await ask(victim, path, "POST", {
            organizationId: victimOrg.id,
            data: { name: "renamed" },
            slug: "x",
            name: "x",
          })
        ).status,
        `POST ${path}`,
      ).toBe(404);
    }
    const doc = (await (await fetch(`${api.url}/api/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((path) => path.includes("/organization/"))).toEqual([]);
  });

  it("check-slug gives the same 404 for another organisation's slug as for a free one", async () => {
    const taken = await ask(intruder, "/organization/check-slug", "POST", { slug: victimOrg.slug });
    expect(taken.status).toBe(404);
    expect(
      await ask(intruder, "/organization/check-slug", "POST", { slug: `free-${crypto.randomUUID().slice(0, 8)}` }),
    ).toEqual(taken);
  });

  it("naming another organisation's id changes nothing of it, and the session and Throng's own org routes still work", async () => {
    expect(
      (
        await ask(intruder, "/organization/update", "POST", {
          organizationId: victimOrg.id,
          data: { name: "taken over" },
        })
      ).status,
    ).toBe(404);
    expect((await ask(intruder, "/organization/set-active", "POST", { organizationId: victimOrg.id })).status).toBe(
      404,
    );
    expect(Me.parse((await victim.request("GET", "/api/me")).json).organization.name).toBe(victimOrg.name);
    expect(Me.parse((await intruder.request("GET", "/api/me")).json).organization.id).not.toBe(victimOrg.id);
    expect((await victim.request("GET", "/api/orgs")).status).toBe(200);
    expect((await ask(victim, "/get-session", "GET")).status).toBe(200);
  });
});
