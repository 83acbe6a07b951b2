import type { RawData, WebSocket } from "ws";
import {
  AGENT_PROTOCOL_VERSION,
  AgentCloseCode,
  decodeAgentMessage,
  encodeMessage,
  type AgentToServerMessage,
  type Hello,
  type ServerToAgentMessage,
} from "@throng/protocol/agent";
import { AgentControl, Channel } from "@throng/protocol/jobs";
import { ThrongError } from "@throng/protocol/errors";
import { isDatabaseUnavailable } from "@throng/db/unavailable";
import { THRONG_VERSION } from "@throng/protocol/version";
import type { FastifyBaseLogger } from "fastify";
import type { ApiDeps } from "../services";
import type { Admission } from "./hello-admission";
import { createSecretDelivery } from "./secret-delivery";

/** The gateway never queues without bound for an agent that does not read: past this it drops the agent. */
const MAX_BUFFERED_BYTES = 8 << 20;

/** After a disconnect, while the database is unavailable: the first wait and the longest between tries. */
const DISCONNECT_RETRY_MS = { first: 1_000, most: 15_000 };

/** Close reasons are limited to 123 bytes by the WebSocket protocol. */
function closeWith(socket: WebSocket, code: number, reason: string) {
  socket.close(code, Buffer.from(reason).subarray(0, 123).toString());
}

/** What a session is given: the agent's socket, the API's dependencies, this instance's agents, where it logs. */
interface SessionLink {
  socket: WebSocket;
  deps: ApiDeps;
  registry: Map<string, WebSocket>;
  log: FastifyBaseLogger;
  ip: string | null;
  slot: Extract<Admission, { admitted: true }>;
}

/**
 * One agent's connection and its state: who the agent is once its hello is accepted, the messages it sent handled
 * one at a time in order, the messages for it in order, the acks of its snapshots in order, when it was last heard.
 */
class AgentSession {
  private agent: { agentId: string; orgId: string } | null = null;
  private readonly unsubscribes: (() => Promise<void>)[] = [];
  /** The agent's messages, handled one at a time, in the order they came. */
  private queue = Promise.resolve();
  private lastHeard = Date.now();
  private readonly secrets: ReturnType<typeof createSecretDelivery>;
  /**
   * Messages for this agent, in the order they came: an assignment or trial waits for its secrets, and what follows
   * it (a run-stop, a search step) must not overtake it.
   */
  private outbound = Promise.resolve();
  /** Snapshots being stored, in arrival order; each one's ack is sent when it and those before it are done. */
  private acks = Promise.resolve();
  private failed = false;
  private readonly helloTimer: NodeJS.Timeout;
  private readonly liveness: NodeJS.Timeout;

  constructor(private readonly link: SessionLink) {
    const { socket, deps, log, slot } = link;
    this.secrets = createSecretDelivery(deps.secrets, log);
    // Shorter when many connections wait for hello (a flood): each one holds a file descriptor and memory until then.
    this.helloTimer = setTimeout(() => {
      closeWith(socket, AgentCloseCode.handshakeRequired, `no hello within ${slot.helloTimeoutMs / 1000} s`);
      socket.terminate(); // a flooder need not answer the close handshake; its slot and descriptor go now
    }, slot.helloTimeoutMs);
    this.liveness = setInterval(() => this.checkLiveness(), deps.config.heartbeatIntervalMs);
    socket.on("message", (data, isBinary) => this.onMessage(data, isBinary));
    socket.on("close", () => this.onClose());
    socket.on("error", (err) => log.warn({ err: err.message, agentId: this.agent?.agentId }, "agent socket error"));
  }

  private send(message: ServerToAgentMessage) {
    const { socket, log } = this.link;
    if (socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      log.warn({ agentId: this.agent?.agentId }, "agent is not reading; dropping its connection");
      socket.terminate();
      return;
    }
    socket.send(encodeMessage(message));
  }

  private deliver(message: ServerToAgentMessage) {
    const orgId = this.agent?.orgId;
    this.outbound = this.outbound
      .then(async () => this.send(orgId ? await this.secrets.fill(orgId, message) : message))
      .catch((err) =>
        this.link.log.error(
          { err, agentId: this.agent?.agentId, type: message.type },
          "message for the agent could not be sent",
        ),
      );
  }

  private checkLiveness() {
    const { socket, deps } = this.link;
    // Before hello only the hello timer applies (its time-out is the gateway's to choose, shorter under a flood).
    if (!this.agent || Date.now() - this.lastHeard <= deps.config.heartbeatIntervalMs * 3) return;
    closeWith(socket, AgentCloseCode.heartbeatTimeout, "no heartbeat");
    // A dead link never answers the close handshake, and ws would wait 30 s for it before "close" (and the
    // agent-lost check) fires: the close frame is already with the kernel, so drop the socket now.
    socket.terminate();
  }

  private async onHello(hello: Hello) {
    const { socket, deps, registry, log, ip, slot } = this.link;
    if (hello.protocolVersion !== AGENT_PROTOCOL_VERSION) {
      return closeWith(
        socket,
        AgentCloseCode.versionUnsupported,
        `agent protocol v${hello.protocolVersion} unsupported; run throng-agent ${THRONG_VERSION} (protocol v${AGENT_PROTOCOL_VERSION})`,
      );
    }
    if (hello.auth.kind === "enrolment") {
      const limit = await deps.rateLimiter.hit("enrol-ip", ip ?? "unknown", deps.rateLimits.enrolment);
      if (!limit.allowed)
        return closeWith(
          socket,
          AgentCloseCode.rateLimited,
          `too many enrolment attempts; retry in ${limit.retryAfterSec} s`,
        );
    }
    const authed = await deps.fleet.authenticate(hello, ip);
    clearTimeout(this.helloTimer);
    slot.release();
    this.agent = { agentId: authed.agentId, orgId: authed.orgId };
    const previous = registry.get(authed.agentId);
    if (previous && previous !== socket)
      closeWith(previous, AgentCloseCode.replaced, "replaced by a newer connection of this agent");
    registry.set(authed.agentId, socket);
    this.unsubscribes.push(
      await deps.subscriber.subscribe(Channel.agent(authed.agentId), (message) =>
        this.deliver(message as ServerToAgentMessage),
      ),
      await deps.subscriber.subscribe(Channel.agentControl(authed.agentId), (message) => {
        const control = AgentControl.safeParse(message);
        if (control.success) closeWith(socket, control.data.code, control.data.reason);
      }),
    );
    await deps.fleet.markSeen(authed.orgId, authed.agentId, true);
    this.send({
      type: "ready",
      payload: {
        agentId: authed.agentId,
        orgId: authed.orgId,
        credential: authed.credential,
        heartbeatIntervalMs: deps.config.heartbeatIntervalMs,
        flushIntervalMs: deps.config.flushIntervalMs,
        serverTime: Date.now(),
        orphanGraceMs: deps.config.orphanGraceMs,
      },
    });
    log.info(
      { agentId: authed.agentId, orgId: authed.orgId, host: hello.host.hostname, enrolled: !!authed.credential },
      "agent connected",
    );
    for (const assignment of await deps.orchestrator.activeAssignments(authed.orgId, authed.agentId)) {
      this.deliver({ type: "run-assignment", payload: assignment });
    }
  }

  private fail(err: unknown) {
    const { socket, log } = this.link;
    if (err instanceof ThrongError && err.code === "unauthenticated")
      return closeWith(socket, AgentCloseCode.unauthenticated, err.message);
    if (err instanceof ThrongError && err.code === "unsupported_version")
      return closeWith(socket, AgentCloseCode.versionUnsupported, err.message);
    if (this.failed) return; // a failed snapshot fails every later link of the ack chain: one report, one close
    this.failed = true;
    // The agent reconnects and sends again what was not acknowledged: an outage of the database is no bug to report.
    if (isDatabaseUnavailable(err))
      log.warn(
        { err: (err as Error).message, agentId: this.agent?.agentId },
        "database unavailable; agent asked to reconnect",
      );
    else log.error({ err, agentId: this.agent?.agentId }, "agent message failed");
    closeWith(socket, AgentCloseCode.internal, "server error; reconnect");
  }

  private async handle(message: AgentToServerMessage) {
    const { socket, deps } = this.link;
    if (message.type === "hello") {
      if (this.agent) return closeWith(socket, AgentCloseCode.invalidMessage, "hello sent twice");
      return this.onHello(message.payload);
    }
    const agent = this.agent;
    if (!agent) return closeWith(socket, AgentCloseCode.handshakeRequired, "send hello first");
    switch (message.type) {
      case "heartbeat":
        await deps.fleet.heard(agent.orgId, agent.agentId);
        return this.send({ type: "heartbeat", payload: { sentAt: Date.now(), echo: message.payload.sentAt } });
      case "snapshot":
        return this.onSnapshot(agent, message);
      case "server-sample":
        return this.onServerSample(agent, message);
      case "script-fetch":
        return this.onScriptFetch(agent, message);
      case "shard-status":
        // Its snapshots are stored first (the end of a shard follows its last ack), and the shard's last seconds
        // may still sit in ingest's coalescing window: merge and publish them, so a browser sees every second
        // before the run's end (which this status may trigger) is announced.
        await this.acks;
        await deps.ingest.flush();
        return deps.orchestrator.shardStatus(agent.orgId, agent.agentId, message.payload);
      case "session-trial-result":
        // To whichever API instance waits for it (PROTOCOL.md §13).
        return deps.trials.answered(agent.agentId, this.secrets.redact(message.payload));
    }
  }

  private onSnapshot(
    agent: { agentId: string; orgId: string },
    message: Extract<AgentToServerMessage, { type: "snapshot" }>,
  ) {
    const { deps, log } = this.link;
    // The next message does not wait for this snapshot's commit: ingest commits many agents' snapshots in one
    // batch, and an agent's next snapshot queued behind its last would tie its pace to the database's commit
    // latency. Acks still go out in order, each only once its snapshot is stored.
    const { agentId } = agent;
    const { runId, seq } = message.payload;
    deps.metrics.snapshotReceived(message.payload, this.lastHeard);
    const result = deps.ingest.ingest(agent.orgId, agentId, this.secrets.redactSnapshot(message.payload));
    this.acks = this.acks
      .then(() => result)
      .then((stored) => {
        deps.metrics.snapshotIngested(stored);
        if (stored === "unknown-run") log.warn({ agentId, runId }, "snapshot for a run this agent does not hold");
        this.send({ type: "snapshot-ack", payload: { runId, seq } });
      });
    this.acks.catch((err) => this.fail(err));
  }

  private async onServerSample(
    agent: { agentId: string; orgId: string },
    message: Extract<AgentToServerMessage, { type: "server-sample" }>,
  ) {
    const { deps, log } = this.link;
    // A watcher's second of the server under test (PROTOCOL.md §11): stored, then acknowledged like a snapshot.
    const result = await deps.serverSamples.ingest(agent.orgId, agent.agentId, message.payload);
    if (result === "unknown-run")
      log.warn(
        { agentId: agent.agentId, runId: message.payload.runId },
        "server sample for a run this agent does not watch",
      );
    return this.send({ type: "snapshot-ack", payload: { runId: message.payload.runId, seq: message.payload.seq } });
  }

  private async onScriptFetch(
    agent: { agentId: string; orgId: string },
    message: Extract<AgentToServerMessage, { type: "script-fetch" }>,
  ) {
    // Only the agent's own organisation's bundles (PROTOCOL.md §12): another org's hash is "not found", never its source.
    const { sha256 } = message.payload;
    const source = await this.link.deps.scripts.sourceForAgent(agent.orgId, sha256);
    return this.send({
      type: "script-bundle",
      payload:
        source !== undefined
          ? { sha256, source }
          : {
              sha256,
              error: `no script bundle ${sha256} in this agent's organisation: upload it (throng script upload, or the Scripts page)`,
            },
    });
  }

  private onMessage(data: RawData, isBinary: boolean) {
    this.lastHeard = Date.now();
    const decoded = isBinary
      ? { ok: false as const, reason: "binary frames are not part of the protocol" }
      : decodeAgentMessage(data.toString());
    if (!decoded.ok) return closeWith(this.link.socket, AgentCloseCode.invalidMessage, decoded.reason);
    this.queue = this.queue.then(() => this.handle(decoded.message)).catch((err) => this.fail(err));
  }

  private onClose() {
    const { socket, registry, log, slot } = this.link;
    clearTimeout(this.helloTimer);
    slot.release();
    clearInterval(this.liveness);
    void this.queue.finally(async () => {
      for (const unsubscribe of this.unsubscribes) await unsubscribe();
      const agent = this.agent;
      if (agent && registry.get(agent.agentId) === socket) {
        registry.delete(agent.agentId);
        log.info({ agentId: agent.agentId }, "agent disconnected");
        await this.afterDisconnect(agent.orgId, agent.agentId, new Date());
      }
    });
  }

  /**
   * The agent is marked offline and its shards' lost checks are scheduled; while the database is unavailable
   * (PostgreSQL restarting) both are tried again, with backoff, until they are done or the agent is back here.
   */
  private async afterDisconnect(orgId: string, agentId: string, closedAt: Date) {
    const { deps, registry, log } = this.link;
    for (let waitMs = DISCONNECT_RETRY_MS.first; ; waitMs = Math.min(waitMs * 2, DISCONNECT_RETRY_MS.most)) {
      try {
        await deps.fleet.markDisconnected(orgId, agentId, closedAt);
        return await deps.orchestrator.agentDisconnected(orgId, agentId);
      } catch (err) {
        if (!isDatabaseUnavailable(err))
          return log.error(
            { err, agentId },
            "marking a disconnected agent offline or scheduling its lost check failed",
          );
        if (registry.has(agentId)) return; // back on this instance: its hello found the database and marked it online
        log.warn(
          { agentId, retryInMs: waitMs },
          "database unavailable; the disconnected agent's offline mark and lost check wait for it",
        );
        await new Promise((resolve) => setTimeout(resolve, waitMs).unref());
      }
    }
  }
}

/** One agent's connection: strict handshake, then messages handled one at a time, in order. */
export function startAgentSession(
  socket: WebSocket,
  deps: ApiDeps,
  registry: Map<string, WebSocket>,
  log: FastifyBaseLogger,
  ip: string | null,
  slot: Extract<Admission, { admitted: true }>,
): void {
  new AgentSession({ socket, deps, registry, log, ip, slot });
}
