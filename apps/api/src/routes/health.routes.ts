import type { FastifyInstance } from "fastify";
import { Health } from "@throng/protocol/api";
import { THRONG_VERSION } from "@throng/protocol/version";
import type { ApiDeps } from "../services";

async function probe(check: () => Promise<void>): Promise<"ok" | "down"> {
  try {
    await check();
    return "ok";
  } catch {
    return "down";
  }
}

/** GET /health: database and Redis status; 503 when either is down so a load balancer can react. */
export async function healthRoutes(app: FastifyInstance, deps: Pick<ApiDeps, "health">) {
  app.get(
    "/health",
    {
      schema: { response: { 200: Health, 503: Health } },
      config: { doc: { summary: "Database and Redis status", access: "public", answers: [200, 503] } },
    },
    async (_request, reply) => {
      const [database, redis] = await Promise.all([probe(deps.health.database), probe(deps.health.redis)]);
      const status = database === "ok" && redis === "ok" ? "ok" : "degraded";
      const health: Health = { status, database, redis, version: THRONG_VERSION };
      return reply.status(status === "ok" ? 200 : 503).send(health);
    },
  );
}
