import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Identity } from "./actor";
import { registerErrorHandler } from "./errors";
import { memberRoutes } from "./member-route";
import { registerZodSchemas, type ZodFastify, type ZodTypeProvider } from "./route-schema";

const caller: Identity = {
  actor: { orgId: "org-1", role: "admin", userId: "user-1", label: "ann@example.com", via: "session" },
  user: { id: "user-1", email: "ann@example.com", name: "Ann" },
  sessionId: "session-1",
  caller: "session:session-1",
  org: { id: "org-1", name: "Ann's", slug: "anns" },
};

async function appWithMemberRoutes() {
  const app = Fastify();
  registerZodSchemas(app);
  registerErrorHandler(app, []);
  const member = memberRoutes(app.withTypeProvider<ZodTypeProvider>() as ZodFastify, async () => caller);
  const Thing = z.object({ name: z.string() });
  member.get("/things", "plan.read", {
    summary: "List",
    schema: { response: { 200: Thing } },
    handler: ({ actor }) => ({ name: actor.label }),
  });
  member.post("/things", "plan.write", {
    summary: "Create",
    schema: { response: { 201: Thing } },
    answers: [201],
    handler: ({ user }) => ({ name: user!.name }),
  });
  member.delete("/things/:id", "plan.write", {
    summary: "Delete",
    schema: {},
    answers: [204],
    handler: () => undefined,
  });
  member.put("/things", "plan.write", {
    summary: "Upsert",
    schema: { response: { 200: Thing, 201: Thing } },
    answers: [200, 201],
    handler: async ({ reply }) => reply.status(201).send({ name: "made" }),
  });
  await app.ready();
  return app;
}

describe("member routes (memberRoutes)", () => {
  it("hand the handler the caller's identity and answer with the one success the route declares", async () => {
    const app = await appWithMemberRoutes();
    const read = await app.inject({ url: "/things" });
    expect([read.statusCode, read.json()]).toEqual([200, { name: "ann@example.com" }]);
    const created = await app.inject({ method: "POST", url: "/things" });
    expect([created.statusCode, created.json()]).toEqual([201, { name: "Ann" }]);
    const removed = await app.inject({ method: "DELETE", url: "/things/1" });
    expect([removed.statusCode, removed.body]).toEqual([204, ""]);
    await app.close();
  });

  it("leave the status to a handler that answers itself, where the route declares more than one success", async () => {
    const app = await appWithMemberRoutes();
    const upserted = await app.inject({ method: "PUT", url: "/things" });
    expect([upserted.statusCode, upserted.json()]).toEqual([201, { name: "made" }]);
    await app.close();
  });
});
