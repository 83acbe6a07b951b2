import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { registerErrorHandler } from "./errors";
import { registerZodSchemas, requestBody, type ZodTypeProvider } from "./route-schema";

async function appWithRoute() {
  const app = Fastify();
  registerZodSchemas(app);
  registerErrorHandler(app, []);
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const Params = z.object({ id: z.string().uuid() });
  const Query = z.object({ limit: z.coerce.number().int().min(1).default(20) });
  typed.get("/things/:id", { schema: { params: Params, querystring: Query } }, async (request) => ({
    id: request.params.id,
    limit: request.query.limit,
  }));
  await app.ready();
  return app;
}

/** Expects a 400 validation_failed whose message opens with `words` and whose one field is `path`. */
function expectRefused(answer: { statusCode: number; json: () => unknown }, words: RegExp, path: string) {
  expect(answer.statusCode).toBe(400);
  expect(answer.json()).toMatchObject({
    error: { code: "validation_failed", message: expect.stringMatching(words), fields: [{ path }] },
  });
}

describe("route schemas (zod, parsed once before the handler)", () => {
  it("hand the handler the parsed params and query: coerced, defaults filled", async () => {
    const app = await appWithRoute();
    const id = crypto.randomUUID();
    expect((await app.inject({ url: `/things/${id}?limit=5` })).json()).toEqual({ id, limit: 5 });
    expect((await app.inject({ url: `/things/${id}` })).json()).toEqual({ id, limit: 20 });
    await app.close();
  });

  it("refuse bad input as validation_failed naming the part and the field, before the handler", async () => {
    const app = await appWithRoute();
    expectRefused(await app.inject({ url: "/things/nope" }), /^Invalid path parameter \(id: /, "id");
    expectRefused(
      await app.inject({ url: `/things/${crypto.randomUUID()}?limit=0` }),
      /^Invalid query string \(limit: /,
      "limit",
    );
    await app.close();
  });
});

describe("route body schemas (declared with requestBody)", () => {
  async function appWithBodies() {
    const app = Fastify();
    registerZodSchemas(app);
    registerErrorHandler(app, []);
    const typed = app.withTypeProvider<ZodTypeProvider>();
    const Thing = z.object({ name: z.string().min(1), size: z.number().int().default(3) });
    const Options = z.object({ ttl: z.number().int().default(60) });
    typed.post("/things", { schema: { body: requestBody(Thing, "thing") } }, async (request) => request.body);
    typed.post(
      "/options",
      { schema: { body: requestBody(Options, "options", { optional: true }) } },
      async (request) => request.body,
    );
    await app.ready();
    return app;
  }

  it("hand the handler the parsed body (defaults filled), and read a left-out optional body as {}", async () => {
    const app = await appWithBodies();
    expect((await app.inject({ method: "POST", url: "/things", payload: { name: "a" } })).json()).toEqual({
      name: "a",
      size: 3,
    });
    expect((await app.inject({ method: "POST", url: "/options" })).json()).toEqual({ ttl: 60 });
    await app.close();
  });

  it("refuse a bad or missing body naming it in the route's words and the field", async () => {
    const app = await appWithBodies();
    const bad = await app.inject({ method: "POST", url: "/things", payload: { name: "" } });
    expectRefused(bad, /^Invalid thing \(name: /, "name");
    const missing = await app.inject({ method: "POST", url: "/things" });
    expectRefused(missing, /^Invalid thing \(\(root\): /, "(root)");
    await app.close();
  });
});
