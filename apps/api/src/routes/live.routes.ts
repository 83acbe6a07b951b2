import { IdParams } from "@throng/protocol/api";
import { Channel } from "@throng/protocol/jobs";
import type { LiveEnvelope } from "@throng/protocol/run";
import type { ApiDeps } from "../services";
import type { ZodFastify } from "../http/route-schema";
import { memberRoutes } from "../http/member-route";

/** A browser that cannot keep up is cut off rather than buffered without bound; it reconnects and refetches. */
const MAX_BUFFERED_BYTES = 1 << 20;
const KEEPALIVE_MS = 15_000;

/**
 * GET /api/runs/:id/live: server-sent events, one LiveEnvelope per event (its seq also as the event id), fed
 * from Redis so any API instance serves any run. The first event is the run as it is now, numbered with the
 * run's current seq, so the browser can tell whether anything it fetched before is already stale.
 */
export async function liveRoutes(app: ZodFastify, deps: ApiDeps) {
  const member = memberRoutes(app, deps.resolveIdentity);
  member.get("/api/runs/:id/live", "run.read", {
    summary: "Server-sent events: the run's numbered live messages",
    schema: { params: IdParams },
    produces: "text/event-stream",
    handler: async ({ actor, request, reply }) => {
      const { id } = request.params;
      const run = await deps.runs.get(actor, id);
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache, no-transform",
        connection: "keep-alive",
        "x-accel-buffering": "no",
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
      });
      const send = (envelope: LiveEnvelope) => {
        if (res.writableLength > MAX_BUFFERED_BYTES) {
          request.log.warn({ runId: id }, "live stream too slow; closing it");
          res.destroy();
          return;
        }
        res.write(`id: ${envelope.seq}\ndata: ${JSON.stringify(envelope)}\n\n`);
      };
      let pending: LiveEnvelope[] | null = [];
      const unsubscribe = await deps.subscriber.subscribe(Channel.run(id), (message) => {
        if (pending) pending.push(message as LiveEnvelope);
        else send(message as LiveEnvelope);
      });
      send({ seq: await deps.liveSeq(id), message: { type: "run", run } });
      for (const envelope of pending) send(envelope);
      pending = null;
      const keepalive = setInterval(() => res.write(": keepalive\n\n"), KEEPALIVE_MS);
      deps.metrics.liveSubscriberJoined();
      request.raw.on("close", () => {
        deps.metrics.liveSubscriberLeft();
        clearInterval(keepalive);
        void unsubscribe();
      });
    },
  });
}
