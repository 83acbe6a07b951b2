import WebSocket from "ws";
import {
  AGENT_PROTOCOL_VERSION,
  decodeServerMessage,
  encodeMessage,
  type AgentToServerMessage,
  type Hello,
  type ServerToAgentMessage,
} from "@throng/protocol/agent";
import { EnrolmentTokenCreated } from "@throng/protocol/api";
import { THRONG_VERSION } from "@throng/protocol/version";
import type { TestUser } from "./test-api";

type Of<T extends ServerToAgentMessage["type"]> = Extract<ServerToAgentMessage, { type: T }>["payload"];

export function helloWith(auth: Hello["auth"], overrides: Partial<Hello> = {}): Hello {
  return {
    agentVersion: THRONG_VERSION,
    protocolVersion: AGENT_PROTOCOL_VERSION,
    auth,
    host: { hostname: "rig-1", os: "linux", arch: "x64", cores: 2, memoryBytes: 8 * 2 ** 30 },
    labels: {},
    ...overrides,
  };
}

/**
 * The server side's view of an agent, over a real socket: tests drive the gateway protocol frame by frame
 * (the real agent process is exercised in agent/ and e2e/).
 */
export async function connectTestAgent(gatewayUrl: string) {
  const ws = new WebSocket(gatewayUrl);
  const inbox: ServerToAgentMessage[] = [];
  const waiters: { type: string; resolve: (m: ServerToAgentMessage) => void }[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() }));
  });
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  ws.on("close", () => clearInterval(heartbeat));
  ws.on("message", (data) => {
    const decoded = decodeServerMessage(data.toString());
    if (!decoded.ok) throw new Error(`server sent a bad frame: ${decoded.reason}`);
    // Like a real agent, keep the session alive at the interval the server set, or it is shown offline.
    if (decoded.message.type === "ready") {
      const every = decoded.message.payload.heartbeatIntervalMs;
      heartbeat = setInterval(
        () =>
          ws.readyState === ws.OPEN &&
          !ws.isPaused &&
          ws.send(encodeMessage({ type: "heartbeat", payload: { sentAt: Date.now() } })),
        every / 2,
      );
    }
    const waiter = waiters.findIndex((w) => w.type === decoded.message.type);
    if (waiter >= 0) waiters.splice(waiter, 1)[0]!.resolve(decoded.message);
    else inbox.push(decoded.message);
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return {
    ws,
    closed,
    send(message: AgentToServerMessage) {
      ws.send(encodeMessage(message));
    },
    sendRaw(raw: string) {
      ws.send(raw);
    },
    /** The next message of this type (already received or still to come). */
    next<T extends ServerToAgentMessage["type"]>(type: T, timeoutMs = 10_000): Promise<Of<T>> {
      const index = inbox.findIndex((m) => m.type === type);
      const message =
        index >= 0
          ? Promise.resolve(inbox.splice(index, 1)[0]!)
          : new Promise<ServerToAgentMessage>((resolve, reject) => {
              const timer = setTimeout(() => reject(new Error(`no ${type} within ${timeoutMs} ms`)), timeoutMs);
              waiters.push({
                type,
                resolve: (m) => {
                  clearTimeout(timer);
                  resolve(m);
                },
              });
            });
      return message.then((m) => m.payload) as unknown as Promise<Of<T>>;
    },
    close() {
      ws.close(1000);
      return closed;
    },
  };
}
export type TestAgent = Awaited<ReturnType<typeof connectTestAgent>>;

/** A fresh enrolment token into `user`'s organisation (POST /api/enrolment-tokens). */
export async function enrolmentToken(user: Pick<TestUser, "request">): Promise<string> {
  return EnrolmentTokenCreated.parse((await user.request("POST", "/api/enrolment-tokens")).json).token;
}

/**
 * An agent enrolled into `user`'s organisation with a fresh token and past its handshake, with its `ready`
 * (agent id, org id, intervals); `hello` overrides the hello's host, labels, capacity or role.
 */
export async function enrolTestAgent(gatewayUrl: string, user: Pick<TestUser, "request">, hello: Partial<Hello> = {}) {
  const agent = await connectTestAgent(gatewayUrl);
  agent.send({ type: "hello", payload: helloWith({ kind: "enrolment", token: await enrolmentToken(user) }, hello) });
  return { agent, ready: await agent.next("ready") };
}

/**
 * An agent connecting again with the credential its enrolment's `ready` handed out (or another `secret`), its hello
 * sent: the caller awaits `ready`, a resent assignment, or the close a wrong or revoked credential gets.
 */
export async function reconnectTestAgent(
  gatewayUrl: string,
  ready: { agentId: string; credential?: { secret: string } },
  secret = ready.credential!.secret,
) {
  const agent = await connectTestAgent(gatewayUrl);
  agent.send({ type: "hello", payload: helloWith({ kind: "credential", agentId: ready.agentId, secret }) });
  return agent;
}
