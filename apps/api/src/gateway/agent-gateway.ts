import type { FastifyInstance } from "fastify";
import { WebSocketServer, type WebSocket } from "ws";
import { AGENT_GATEWAY_PATH } from "@throng/protocol/agent";
import type { ApiDeps } from "../services";
import { startAgentSession } from "./agent-session";

/** Agents dial out to this path; one `ws` server shares the API's HTTP port. */
export function attachAgentGateway(app: FastifyInstance, deps: ApiDeps) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });
  const registry = new Map<string, WebSocket>();
  const log = app.log.child({ component: "agent-gateway" });

  app.server.on("upgrade", (request, socket, head) => {
    const path = (request.url ?? "").split("?")[0];
    if (path !== AGENT_GATEWAY_PATH) {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n");
      return;
    }
    // Behind a load balancer the first X-Forwarded-For hop is the rig; otherwise the socket's peer.
    const forwarded = request.headers["x-forwarded-for"];
    const ip = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim() || request.socket.remoteAddress || null;
    wss.handleUpgrade(request, socket, head, (ws) => startAgentSession(ws, deps, registry, log, ip));
  });

  app.addHook("onClose", async () => {
    for (const ws of wss.clients) ws.close(1001, "server shutting down");
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });
  return { connectedAgents: () => registry.size };
}
