import type { FastifyInstance } from "fastify";
import { parseOrThrow } from "@throng/protocol/errors";
import { IdParams } from "@throng/protocol/api";
import { Channel } from "@throng/protocol/jobs";
import type { LiveMessage } from "@throng/protocol/run";
import type { ApiDeps } from "../services";

/** A browser that cannot keep up is cut off rather than buffered without bound; it reconnects and refetches. */
const MAX_BUFFERED_BYTES = 1 << 20;
const KEEPALIVE_MS = 15_000;

/** GET /api/runs/:id/live: server-sent events, one LiveMessage per event, fed from Redis so any instance serves it. */
export async function liveRoutes(app: FastifyInstance, deps: ApiDeps) {
  app.get("/api/runs/:id/live", async (request, reply) => {
    const actor = await deps.resolveActor(request);
    const { id } = parseOrThrow(IdParams, request.params, "run id");
    const run = await deps.runs.get(actor.orgId, id);

    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
    const send = (message: LiveMessage) => {
      if (res.writableLength > MAX_BUFFERED_BYTES) {
        request.log.warn({ runId: id }, "live stream too slow; closing it");
        res.destroy();
        return;
      }
      res.write(`data: ${JSON.stringify(message)}\n\n`);
    };
    send({ type: "run", run });

    const unsubscribe = await deps.subscriber.subscribe(Channel.run(id), (message) => send(message as LiveMessage));
    const keepalive = setInterval(() => res.write(": keepalive\n\n"), KEEPALIVE_MS);
    request.raw.on("close", () => {
      clearInterval(keepalive);
      void unsubscribe();
    });
  });
}
