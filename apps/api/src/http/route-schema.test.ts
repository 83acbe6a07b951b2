import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { registerErrorHandler } from "./errors";
import { registerZodSchemas, type ZodTypeProvider } from "./route-schema";

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
    const badId = await app.inject({ url: "/things/nope" });
    expect(badId.statusCode).toBe(400);
    expect(badId.json()).toMatchObject({
      error: {
        code: "validation_failed",
        message: expect.stringMatching(/^Invalid path parameter \(id: /),
        fields: [{ path: "id" }],
      },
    });
    const badQuery = await app.inject({ url: `/things/${crypto.randomUUID()}?limit=0` });
    expect(badQuery.statusCode).toBe(400);
    expect(badQuery.json()).toMatchObject({
      error: {
        code: "validation_failed",
        message: expect.stringMatching(/^Invalid query string \(limit: /),
        fields: [{ path: "limit" }],
      },
    });
    await app.close();
  });
});
