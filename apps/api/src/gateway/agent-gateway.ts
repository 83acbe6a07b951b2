import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { FastifyInstance } from "fastify";
import { WebSocketServer, type WebSocket } from "ws";
import { z } from "zod";
import { AGENT_CREDENTIAL_HEADER, AGENT_GATEWAY_PATH } from "@throng/protocol/agent";
import type { ErrorBody } from "@throng/protocol/errors";
import type { ApiDeps } from "../services";
import { startAgentSession } from "./agent-session";
import { admissionAddress, createHelloAdmission, type Admission } from "./hello-admission";

const AgentId = z.string().uuid();

/** A refusal written before the WebSocket handshake: no `ws` state, no timers, the socket closed at once. */
function refuseUpgrade(socket: Duplex, refusal: Extract<Admission, { admitted: false }>) {
  const error: ErrorBody = {
    error: { code: refusal.status === 429 ? "rate_limited" : "unavailable", message: refusal.reason },
  };
  const body = JSON.stringify(error);
  const status = refusal.status === 429 ? "429 Too Many Requests" : "503 Service Unavailable";
  socket.end(
    `HTTP/1.1 ${status}\r\nRetry-After: ${refusal.retryAfterSec}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Agents dial out to this path; one `ws` server shares the API's HTTP port. */
export function attachAgentGateway(app: FastifyInstance, deps: ApiDeps) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });
  const registry = new Map<string, WebSocket>();
  const log = app.log.child({ component: "agent-gateway" });
  const admission = createHelloAdmission(deps.hello);
  // Credential checks at the upgrade run only when anonymous slots are gone; bounded like the slots they lead to.
  let proving = 0;

  /** True when the upgrade carries this agent's live credential (one indexed lookup; malformed ones cost none). */
  async function provesCredential(request: IncomingMessage): Promise<boolean> {
    const header = request.headers[AGENT_CREDENTIAL_HEADER];
    if (typeof header !== "string" || proving >= deps.hello.reservedForCredentials) return false;
    const cut = header.indexOf(":");
    const agentId = header.slice(0, cut);
    if (cut < 0 || !AgentId.safeParse(agentId).success) return false;
    proving += 1;
    try {
      return await deps.fleet.provesCredential(agentId, header.slice(cut + 1));
    } catch (err) {
      log.warn({ err }, "credential check at upgrade failed");
      return false;
    } finally {
      proving -= 1;
    }
  }

  async function admit(request: IncomingMessage, socket: Duplex, head: Buffer, ip: string | null) {
    const forwarded = request.headers["x-forwarded-for"];
    const address = admissionAddress(request.socket.remoteAddress, Array.isArray(forwarded) ? forwarded[0] : forwarded);
    let admitted = admission.admit(address);
    if (!admitted.admitted && request.headers[AGENT_CREDENTIAL_HEADER] && (await provesCredential(request))) {
      admitted = admission.admit(address, true);
    }
    if (!admitted.admitted) {
      log.debug({ ip, status: admitted.status }, "agent upgrade refused: too many connections waiting for hello");
      return refuseUpgrade(socket, admitted);
    }
    if (socket.destroyed) return admitted.release();
    const slot = admitted;
    // Held until the hello is accepted or the socket closes, also when `ws` refuses a malformed handshake itself.
    socket.once("close", slot.release);
    wss.handleUpgrade(request, socket, head, (ws) => startAgentSession(ws, deps, registry, log, ip, slot));
  }

  app.server.on("upgrade", (request, socket, head) => {
    const path = (request.url ?? "").split("?")[0];
    if (path !== AGENT_GATEWAY_PATH) {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n");
      return;
    }
    socket.on("error", () => undefined); // a peer that resets before the handshake is not an API error
    // Behind a load balancer the first X-Forwarded-For hop is the rig; otherwise the socket's peer.
    const forwarded = request.headers["x-forwarded-for"];
    const ip =
      (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim() ||
      request.socket.remoteAddress ||
      null;
    void admit(request, socket, head, ip).catch((err) => {
      log.error({ err }, "agent upgrade failed");
      socket.destroy();
    });
  });

  app.addHook("onClose", async () => {
    for (const ws of wss.clients) ws.close(1001, "server shutting down");
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });
  return { connectedAgents: () => registry.size, waitingForHello: () => admission.pending() };
}
