import type { FastifyInstance } from "fastify";
import { fromNodeHeaders } from "better-auth/node";
import type { ApiDeps } from "../services";

/** Better Auth's own endpoints (sign-up, sign-in, sign-out, session), bridged from Fastify to a fetch Request. */
export async function authRoutes(app: FastifyInstance, deps: Pick<ApiDeps, "auth">) {
  app.route({
    method: ["GET", "POST"],
    url: "/api/auth/*",
    async handler(request, reply) {
      const url = new URL(request.url, `http://${request.headers.host ?? "localhost"}`);
      const hasBody = request.method !== "GET" && request.body !== undefined;
      const response = await deps.auth.handler(
        new Request(url, {
          method: request.method,
          headers: fromNodeHeaders(request.headers),
          ...(hasBody ? { body: JSON.stringify(request.body) } : {}),
        }),
      );
      reply.status(response.status);
      for (const cookie of response.headers.getSetCookie()) reply.header("set-cookie", cookie);
      response.headers.forEach((value, key) => {
        if (key !== "set-cookie") reply.header(key, value);
      });
      return reply.send(response.body ? await response.text() : null);
    },
  });
}
